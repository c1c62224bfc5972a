//! Gathering: what the evidence holds, as signals. Each signal's vote and weight come
//! from the table in [`super::signals`]; this only says which were seen and why.

use nsp_protocol::Reversibility::{IrreversibleWrite, Read, ReversibleWrite};

use super::evidence::{Declared, Evidence, Kind};
use super::lexicon::{
    ends_session, hits, hits_in, is_authentication, is_deletion, is_dismiss, is_selection,
    logs_out, makes_item, opens_editor, previews, section_hits, sends, shows_part, shows_verb,
    stores_record, strongest_per_tier,
};
use super::score::Tally;
use super::signals::{Binding, Signal, Strength, Vote};

/// Turns what the evidence holds into weighed signals.
pub(super) fn gather(ev: &Evidence<'_>, t: &mut Tally) {
    let section_phrase = section_hits(ev.label, &ev.section);
    let label_hits = section_phrase.clone().unwrap_or_else(|| hits(ev.label));
    // The label opens with logging out.
    let ends = logs_out(&label_hits);
    let form = ev.form.cloned().unwrap_or_default();
    let writes_form = ev.kind == Kind::Submit
        && !form.implicit
        && form
            .method
            .as_deref()
            .is_some_and(|m| m != "get" && m != "dialog");
    let dismiss = is_dismiss(ev.label);
    let secondary_dismiss = ev.kind == Kind::Submit && dismiss && form.has_other_submit;
    // "Cancel" or "No, take me back" beside a form or in a dialog backs out of it, and
    // on a page that asks a question ("Do you really want to delete this page?", Lektor's
    // admin, its "Yes, delete" and "No, cancel" in no form) out of what it asks.
    let dialog_dismiss = matches!(ev.kind, Kind::Button | Kind::Clickable | Kind::Link)
        && dismiss
        && (ev.in_dialog || ev.local.in_form || ev.page.is_some_and(|f| f.question.is_some()));
    let auth = label_hits.iter().any(|h| is_authentication(&h.cue));
    // A menu button, a disclosure or a view toggle: what it opens, shows or hides is
    // part of the page, and its verb of showing ("Toggle navigation", "Hide sidebar")
    // says so; its pressed or expanded state is whether that part is shown.
    // "Submit" on a form that edits a record that exists, or one headed "Add a bill":
    // sending it saves the edit or the new record, which stays editable. The word says
    // only that the form is sent; the form says what it holds.
    let saves_edit = ev.kind == Kind::Submit
        && writes_form
        && (form.edits_record || form.stores_record)
        && form.data_fields > 0
        && !form.has_password
        && !form.has_payment
        && !form.composes
        && !secondary_dismiss
        && !label_hits.is_empty()
        && label_hits.iter().all(|h| h.cue == "submit");
    let discloses = matches!(ev.kind, Kind::Button | Kind::Clickable)
        && !ev.danger
        && (ev.opens_popup || ev.opens_dialog || shows_part(ev.label));

    // The words.
    if secondary_dismiss || dialog_dismiss {
        t.add(
            Signal::Dismisses,
            if secondary_dismiss {
                "a secondary button that dismisses the form"
            } else {
                "backs out of the dialog, form or question around it"
            },
        );
    } else {
        // Later words of the opening verb's own tier are usually its object ("Delete
        // Buy milk"): the verb has said it already, and so are a write verb's later
        // words of a read ("Save settings", "Add filter": what it writes). Stricter
        // words still count, and make the reading mixed ("Undo send").
        let opening = label_hits.iter().find(|h| h.first).map(|h| h.tier);
        for h in label_hits
            .iter()
            .filter(|h| {
                h.first
                    || !(Some(h.tier) == opening
                        || h.tier == Read && opening.is_some_and(|o| o != Read))
            })
            // A switch's label names the state it sets ("Read", "Viewed", "Search
            // panel"), not a verb it runs: whatever it shows, checking it changes what
            // the page keeps, which toggle_state weighs. Only stricter words count, and
            // a selection box's ("Select row"), which selection weighs.
            .filter(|h| !(ev.kind == Kind::Toggle && h.tier == Read && !is_selection(&h.cue)))
        {
            let strength =
                if ev.kind == Kind::Link && h.tier == ReversibleWrite && !ends_session(&h.cue) {
                    // A link's words name where it goes ("Edit profile"): following it
                    // opens that view.
                    Strength::Weak
                } else {
                    h.strength
                };
            let (tier, strength) = if saves_edit || (ev.clears_field && h.first) {
                (ReversibleWrite, Strength::Weak)
            } else if discloses && h.tier != IrreversibleWrite && shows_verb(&h.cue) {
                (Read, strength)
            } else {
                (h.tier, strength)
            };
            let signal = if h.first {
                Signal::LabelVerb(strength)
            } else {
                Signal::LabelWord(strength)
            };
            let what = if section_phrase.is_some() {
                "phrase (label and section)"
            } else if h.cue.contains(' ') {
                "phrase"
            } else {
                "word"
            };
            t.add_vote(
                signal,
                Vote::For(tier),
                if tier == h.tier {
                    format!(
                        "{what} \"{}\" in the label points to {}",
                        h.cue,
                        h.tier.as_str()
                    )
                } else if ev.clears_field {
                    format!(
                        "{what} \"{}\" in the label empties the field the label names",
                        h.cue
                    )
                } else if saves_edit && form.edits_record {
                    format!(
                        "{what} \"{}\" sends a form that edits a record that exists: it saves the edit",
                        h.cue
                    )
                } else if saves_edit {
                    format!(
                        "{what} \"{}\" sends a form whose heading says it stores a record: it saves that record",
                        h.cue
                    )
                } else {
                    format!(
                        "{what} \"{}\" in the label of a menu button, disclosure or view toggle: it shows or hides part of the page",
                        h.cue
                    )
                },
            );
        }
    }
    // The other texts shown on the control: a tier they name and the label does not is
    // a conflict between what the person sees and what the control is called.
    let mut named = [false; 3];
    for w in &t.weighed {
        if let Vote::For(tier) = w.vote {
            named[tier as usize] = true;
        }
    }
    for text in &ev.shown {
        let found = hits(text);
        for h in strongest_per_tier(&found, true).into_iter().flatten() {
            // The same verb of showing on the same disclosure, in other words.
            let tier = if discloses && h.tier != IrreversibleWrite && shows_verb(&h.cue) {
                Read
            } else {
                h.tier
            };
            if std::mem::replace(&mut named[tier as usize], true) {
                continue;
            }
            let strength =
                if ev.kind == Kind::Link && h.tier == ReversibleWrite && !ends_session(&h.cue) {
                    Strength::Weak
                } else {
                    h.strength
                };
            t.add_vote(
                if h.first {
                    Signal::ShownVerb(strength)
                } else {
                    Signal::ShownWord(strength)
                },
                Vote::For(tier),
                format!(
                    "\"{}\" in the control's text \"{}\" points to {}, which its label \"{}\" does not",
                    h.cue,
                    crate::text::clip(text, 60),
                    tier.as_str(),
                    crate::text::clip(ev.label, 60)
                ),
            );
        }
    }
    if !ev.description.is_empty() {
        // One vote per tier, the strongest: a description full of read words says
        // "read" once.
        let found = hits_in(ev.description, true);
        for h in strongest_per_tier(&found, false).into_iter().flatten() {
            t.add_vote(
                Signal::DescriptionWord(h.strength),
                Vote::For(h.tier),
                format!(
                    "\"{}\" in the description points to {}",
                    h.cue,
                    h.tier.as_str()
                ),
            );
        }
    }

    // The kind of control.
    match ev.kind {
        Kind::Link if ends => t.add(
            Signal::LinkActs,
            "a link, but one that ends a session: its target performs it",
        ),
        // A link with a `data-method` (Rails' and Laravel's scripts) does not navigate: a
        // click submits a request of that method, which DataMethod* below weigh.
        Kind::Link if ev.data_method.is_some() => {}
        Kind::Link => {
            t.add(Signal::Link, "a link: following it normally only navigates");
            if let Some(href) = ev.href.filter(|h| plain_page_link(h, ev.page_url)) {
                t.add(
                    Signal::LinkToPage,
                    format!(
                        "it links to the page \"{}\" of this site, with no query",
                        crate::text::clip(href, 80)
                    ),
                );
            }
        }
        Kind::Tab => t.add(Signal::Tab, "role=tab switches what is shown"),
        Kind::Reset => t.add(
            Signal::Reset,
            "a reset button: clears the form's fields, sends nothing",
        ),
        // The label's one known word selects ("Select row", or a row's box named
        // "row select"): selection is what the box is for, wherever the word sits.
        Kind::Toggle
            if label_hits
                .first()
                .is_some_and(|h| (h.first || label_hits.len() == 1) && is_selection(&h.cue)) =>
        {
            t.add(
                Signal::Selection,
                "a checkbox that selects items for a later step",
            )
        }
        Kind::Toggle => t.add(
            Signal::ToggleState,
            "a checkbox or switch: it can be switched back",
        ),
        Kind::Choice => t.add(
            Signal::Choice,
            "a choice list outside any form: it can be chosen back",
        ),
        Kind::Clickable => t.bindings.push(Binding::PlainClickable),
        // A field whose words say it searches or filters: what it holds is a query, and
        // its words say so.
        Kind::Field if label_hits.iter().any(|h| h.first && h.tier == Read) => {}
        Kind::Field => t.add(
            Signal::LooseField,
            "a field outside any form: typing again puts back what it held",
        ),
        Kind::Button | Kind::Submit | Kind::Tool => {}
    }
    // A state only a class shows is structure: marks of a write cancel it, as below.
    let class_toggle = ev.class_toggle && !ev.danger && !ev.confirms && ev.data_method.is_none();
    if ev.kind != Kind::Toggle && (ev.local.toggle_state || class_toggle) && !discloses {
        t.add(
            Signal::ToggleState,
            "it holds a pressed or checked state: pressing it again undoes it",
        );
    }
    if ev.kind != Kind::Submit && ends {
        t.add(
            Signal::Authentication,
            "it ends this session: logging in again undoes it",
        );
    }
    let creates = label_hits
        .first()
        .is_some_and(|h| h.first && opens_editor(&h.cue));
    // A button grouped (no `<form>`) with nothing but a search or filter box is a
    // button of its own: what it would save is not in those fields.
    let lone_button = (ev.kind == Kind::Button && ev.form.is_none() && !ev.local.in_form)
        || (ev.kind == Kind::Submit && form.implicit && form.data_fields == 0);
    // Unless the page has fields no form holds, which such a button may be what sends
    // (Mesop's "Add member" under its name box and role picker, nothing grouping
    // them): a write read as a read would run with no person and no check.
    let loose_fields = ev.page.is_some_and(|p| p.loose_fields) && !ev.local.in_row;
    if creates && lone_button && !loose_fields {
        t.add(
            Signal::OpensEditor,
            "a button that creates or replies, with no fields of its own: it opens an editor",
        );
    }
    let makes = label_hits
        .first()
        .is_some_and(|h| h.first && makes_item(&h.cue));
    // A dangerous-looking control that opens a dialog leads into the dangerous step:
    // that it only opens something is then no comfort.
    // Unless the dialog it opens is in the page and holds that step itself.
    let opens = (ev.opens_popup || ev.opens_dialog) && (!ev.danger || ev.opens_confirm);
    if makes && !opens && lone_button {
        t.add(
            Signal::MakesItem,
            "it makes a new item at once, with no fields of its own",
        );
    }
    // Structural evidence that the control only changes the page counts only while no
    // mark of a write (danger styling, `data-confirm`, `data-method`) says otherwise.
    let unmarked = !ev.danger && !ev.confirms && ev.data_method.is_none();
    if ev.formats_text && unmarked {
        t.add(
            Signal::FormatsText,
            "an editor's formatting button: only a save sends the text it changes",
        );
    }
    if ev.clears_field && unmarked {
        t.add(
            Signal::ClearsField,
            "it empties the field beside it, whose name its label repeats: typing puts it back",
        );
    }
    if ev.fills_form && unmarked {
        t.add(
            Signal::FillsForm,
            "it changes the fields of the form beside it, which only its submit sends",
        );
    }
    if !ev.danger && matches!(ev.kind, Kind::Button | Kind::Clickable) && shows_part(ev.label) {
        t.add(
            Signal::ShowsPart,
            "it shows or hides part of the page: nothing is stored",
        );
    }
    if ev.sorts_column && unmarked {
        t.add(
            Signal::SortsColumn,
            "a column's header: clicking it sorts the table, nothing is stored",
        );
    }
    if ev.switches_view && unmarked {
        t.add(
            Signal::SwitchesView,
            "one of a group of buttons of which one is marked or drawn as the current one: it switches what is shown",
        );
    }
    // A button grouped with fields (no `<form>`) that opens a dialog opens it: it
    // submits nothing.
    let implicit = ev.kind == Kind::Submit && form.implicit;
    if opens && (matches!(ev.kind, Kind::Button | Kind::Clickable) || implicit) {
        t.add(
            Signal::OpensPopup,
            if ev.opens_popup {
                "opens a menu, dialog or disclosure"
            } else {
                "its aria-controls names a dialog: it opens that dialog"
            },
        );
        if ev.opens_confirm {
            t.add(
                Signal::OpensConfirm,
                "the dialog it opens holds a control of the same verb: this one only asks",
            );
        }
    }

    // The form.
    if ev.kind == Kind::Submit {
        match form.method.as_deref() {
            _ if form.implicit => {}
            Some("get") => {
                t.add(
                    Signal::GetForm,
                    "the form submits with GET: it asks for a page",
                );
                let scripted = form
                    .action_url
                    .trim()
                    .to_ascii_lowercase()
                    .starts_with("javascript:");
                // Only where it matters: the label names a write ("Delete page").
                let names_write = label_hits.iter().any(|h| h.tier != Read);
                if names_write && !scripted && !form.has_password && !form.has_payment {
                    t.add(
                        Signal::OpensPage,
                        "the form says method=\"get\": it opens the page its URL names, whatever its label",
                    );
                }
            }
            Some(m) if writes_form => t.add(
                Signal::WriteForm,
                format!("the form submits with {}", m.to_ascii_uppercase()),
            ),
            _ => {}
        }
        let previewing = label_hits
            .iter()
            .all(|h| h.tier == Read && h.first && previews(&h.cue))
            && !label_hits.is_empty();
        if writes_form && form.has_other_submit && previewing {
            t.add(
                Signal::Previews,
                "a second submit that previews: the other one saves",
            );
        }
        let action = form.action_url.to_ascii_lowercase();
        if action.contains("delete") || action.contains("destroy") {
            t.add(
                Signal::FormAction,
                format!("the form's action URL \"{}\"", form.action_url),
            );
        }
        if form.has_password || form.has_payment {
            t.add(Signal::SecretField, "the form submits a secret field");
        }
        if form.has_payment {
            t.add(Signal::Payment, "the form takes payment details");
        } else if form.has_password && auth {
            t.add(
                Signal::Authentication,
                "it logs in or signs up: logging out undoes it",
            );
        } else if form.login || (form.has_password && action.contains("login")) {
            // Or a password alone posted to a login address (Isso's admin).
            t.add(
                Signal::LoginForm,
                "a user field and one password, or a password sent to log in: a login, which logging out undoes",
            );
        } else if form.has_password {
            t.add(Signal::Password, "the form submits a password");
        }
        if form.composes && !secondary_dismiss && sends(ev.label) {
            t.add(
                Signal::Compose,
                "the form sends a message to the addresses in its field: it reaches other people",
            );
        }
    }

    // A record saved, created or updated, or an edit of one confirmed or discarded:
    // only when every word of the label says so ("Save and publish" is not).
    let opening = label_hits.first().filter(|h| h.first);
    let stores = opening.is_some_and(|h| h.tier == ReversibleWrite && stores_record(&h.cue))
        && label_hits.iter().all(|h| h.tier == ReversibleWrite);
    if (stores || saves_edit)
        && !opens
        && ev.kind == Kind::Submit
        && !secondary_dismiss
        && form.method.as_deref() != Some("get")
        && form.data_fields > 0
        && !form.has_password
        && !form.has_payment
    {
        t.add(
            Signal::RecordForm,
            "a form of fields that saves a record: it can be edited or deleted again",
        );
    }
    if let Some(h) = opening.filter(|_| ev.confirm_step && ev.kind == Kind::Submit) {
        t.add_vote(
            Signal::ConfirmStep,
            Vote::For(h.tier),
            format!(
                "the page's one form asks only whether to go ahead, beside a way back: \"{}\" is what happens",
                h.cue
            ),
        );
    }

    // The page around it.
    if let Some(page) = ev.page {
        let submits_lone_form =
            ev.local.lone_write_form && ev.kind == Kind::Submit && !secondary_dismiss;
        if submits_lone_form {
            if let Some(cue) = page.path_cue {
                t.add(
                    Signal::PagePath,
                    format!("the page's URL path names \"{cue}\""),
                );
            }
            if let Some(h) = &page.heading {
                t.add_vote(
                    Signal::PageHeading,
                    Vote::For(h.tier),
                    format!(
                        "the page's title or heading says \"{}\" ({})",
                        h.cue,
                        h.tier.as_str()
                    ),
                );
            }
        }
        if ev.local.confirmation_page && submits_lone_form {
            t.add(Signal::ConfirmationPage,
                match &page.question {
                    Some(q) => format!(
                        "the one form of a confirmation page that asks \"{q}\" and offers a way back"
                    ),
                    None => "the one form of a page that warns and offers a way back".to_owned(),
                },
            );
        }
        if let Some(w) = ev
            .local
            .warning
            .filter(|_| !secondary_dismiss && !dialog_dismiss)
        {
            t.add(Signal::Warning, format!("warning text nearby: \"{w}\""));
        }
        if let Some(inv) = ev.local.inverse {
            t.add(
                Signal::InversePair,
                format!("\"{inv}\" on the same page undoes it"),
            );
        }
        let deletes = label_hits.iter().any(|h| is_deletion(&h.cue));
        if deletes && page.trash {
            t.add(
                Signal::Trash,
                "the page has a trash or bin where deleted items go",
            );
        }
        if deletes && page.undo {
            t.add(Signal::Undo, "the page offers \"Undo\"");
        }
    }

    // A warning the control carries itself (its description or title: "permanently
    // deletes the account"), where the page around it had none.
    let warned = t.weighed.iter().any(|w| w.signal == Signal::Warning);
    if !warned && !secondary_dismiss && !dialog_dismiss {
        let own = std::iter::once(ev.description)
            .chain(ev.shown.iter().copied())
            .find_map(|text| crate::context::warning_in(text).map(|w| (w, text)));
        if let Some((w, text)) = own {
            t.add(
                Signal::Warning,
                format!(
                    "warning in the control's own text: \"{w}\" (\"{}\")",
                    crate::text::clip(text, 60)
                ),
            );
        }
    }

    // Markup that only ever makes things stricter.
    if let Some(m) = ev.data_method {
        // A link that ends the session and sends a DELETE deletes the session (Rails'
        // sign-out): logging in again makes another.
        if m == "delete" && !ends {
            t.add(
                Signal::DataMethodDelete,
                "data-method=delete: the link sends a DELETE request",
            );
        } else {
            t.add(
                Signal::DataMethodWrite,
                format!(
                    "data-method={m}: the link sends a {} request",
                    m.to_ascii_uppercase()
                ),
            );
        }
    }
    if ev.confirms {
        t.add(
            Signal::AsksConfirmation,
            "the page asks for confirmation first, as pages do before what cannot be undone",
        );
    }
    if ev.danger {
        t.add(Signal::Danger, "danger styling");
    }

    // Nothing the control shows says anything: assume the worst, weakly. A description
    // is the page's prose beside the control, which a person does not see: its words
    // name a WebMCP tool (which shows nothing else), not a control whose own text has no
    // known word ("Wire all funds" described as "View your balance").
    let worded = t.weighed.iter().any(|w| match w.signal {
        Signal::LabelVerb(_)
        | Signal::LabelWord(_)
        | Signal::ShownVerb(_)
        | Signal::ShownWord(_)
        | Signal::Dismisses => true,
        Signal::DescriptionWord(_) => ev.kind == Kind::Tool,
        _ => false,
    });
    if !worded
        && matches!(
            ev.kind,
            Kind::Button | Kind::Clickable | Kind::Submit | Kind::Tool
        )
    {
        t.add(
            Signal::NoVerb,
            if ev.label.trim().is_empty() {
                "no label: assumed permanent until shown otherwise"
            } else {
                "no known verb in the label: assumed permanent until shown otherwise"
            },
        );
    }

    if let Some(d) = ev.declared {
        let (vote, detail) = match d {
            Declared::Tier(tier) => (
                Vote::For(tier),
                format!("the page declares {}", tier.as_str()),
            ),
            Declared::ReadOnly => (Vote::For(Read), "the tool is declared read-only".to_owned()),
            Declared::Destructive => (
                Vote::For(IrreversibleWrite),
                "the tool is declared destructive".to_owned(),
            ),
            // Not destructive is not the same as undoable: the words still decide
            // between read and reversible.
            Declared::NotDestructive => (
                Vote::Against(IrreversibleWrite),
                "the tool is declared non-destructive".to_owned(),
            ),
            Declared::NotReadOnly => (
                Vote::Against(Read),
                "the tool is declared not read-only (readOnlyHint: false)".to_owned(),
            ),
        };
        t.add_vote(Signal::Declared, vote, detail);
    }
    if ev.positional {
        t.bindings.push(Binding::Positional);
    }
    if ev.disabled {
        t.bindings.push(Binding::Disabled);
    }
}

/// A link to a page of the same site whose URL has no query: not `#`, `javascript:`,
/// `mailto:` or another host.
fn plain_page_link(href: &str, page_url: &str) -> bool {
    let h = href.trim();
    if h.is_empty() || h.starts_with('#') || h.contains('?') {
        return false;
    }
    let lower = h.to_ascii_lowercase();
    if lower.starts_with("javascript:") || lower.starts_with("mailto:") || lower.starts_with("tel:")
    {
        return false;
    }
    match lower.split_once("://") {
        None => !lower.starts_with("//"),
        Some((_, rest)) => {
            let host = rest.split('/').next().unwrap_or("");
            !host.is_empty() && crate::text::host(page_url).eq_ignore_ascii_case(host)
        }
    }
}
