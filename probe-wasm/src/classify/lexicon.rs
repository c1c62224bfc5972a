//! The lexicon: the words and phrases that name a tier, each with how strongly, and
//! what a text's words say. Only words live here; what they weigh is the signal table's
//! ([`super::signals`]).

use nsp_protocol::Reversibility::{self, IrreversibleWrite, Read, ReversibleWrite};

use super::signals::Strength;
use crate::text::words;

pub use crate::words::WordVerdict;

use Strength::{Decisive, Normal, Strong, Weak};

/// Multi-word phrases, checked before single words: their meaning differs from their
/// parts ("move to trash" is recoverable, "delete forever" is not). A phrase inside a
/// longer matched phrase does not vote ("sign out" in "sign out other sessions").
const PHRASES: &[&str] = &[
    concat!(
        "delete forever:i4,permanently delete:i4,delete permanently:i4,delete account:i4,",
        "delete my account:i4,delete this repository:i4,delete repository:i4,",
        "close account:i3,deactivate account:i3,deactivate my account:i3,place order:i4,place your order:i4,buy now:i4,pay now:i4,",
        "complete purchase:i4,confirm purchase:i4,confirm order:i3,send money:i4,",
        "transfer funds:i4,empty trash:i3,empty bin:i3,cancel subscription:i3,",
        "cancel order:i3,",
    ),
    // Credentials and sessions: ending other sessions, rotating keys and changing a
    // password cannot be taken back by the person who did it.
    concat!(
        "sign out other sessions:i3,sign out of other sessions:i3,",
        "sign out all other sessions:i3,sign out everywhere:i3,sign out of all:i3,",
        "log out other sessions:i3,log out of other sessions:i3,",
        "log out all other sessions:i3,log out everywhere:i3,log out of all:i3,",
        "log out all devices:i3,sign out all devices:i3,end other sessions:i3,",
        "end all sessions:i3,revoke all:i3,change password:i3,update password:i3,",
        "reset password:i3,regenerate key:i3,regenerate token:i3,",
    ),
    // Authentication: a session or an account that can be ended again.
    concat!(
        "sign up:w2,create account:w2,create an account:w2,sign in:w2,log in:w2,",
        "sign out:w2,log out:w2,save draft:w3,save as draft:w3,move to trash:w3,",
        "move to bin:w3,move to inbox:w3,move to archive:w3,mark as read:w3,",
        "mark as unread:w3,mark read:w3,mark unread:w3,add to cart:w3,add to bag:w3,",
        "add to basket:w3,add to wishlist:w3,remove from cart:w2,remove from bag:w2,",
        "remove from basket:w2,remove from wishlist:w2,remove from favorites:w2,",
        "apply filters:r2,apply filter:r2,apply coupon:w2,apply code:w2,",
        "apply promo code:w2,apply discount:w2,load more:r2,show more:r2,see more:r2,",
        "learn more:r2,read more:r2,see all:r2,view all:r2,go back:r2,back to:r2,return to:r2,",
        "close ticket:w2,close issue:w2,close pull request:w2,reopen:w2,",
    ),
    // An edit of something that stays editable: saved, confirmed or thrown away, it can
    // be edited again.
    concat!(
        "save changes:w3,confirm changes:w3,apply changes:w2,discard changes:w3,",
        "revert changes:w2,undo changes:w2,submit changes:w3,",
    ),
];

/// Single words, by the tier they point to and how strongly.
const WORDS: &[&str] = &[
    // Permanent, or reaching other people or money.
    "send:i3,resend:i3,relay:i3,submit:i2,pay:i3,buy:i3,order:i2,purchase:i3,checkout:i3,delete:i3,",
    // Most removals take an item out of a list or set it can be put back into; alone,
    // the word is a weak sign of permanence.
    concat!(
        "remove:i1,destroy:i3,erase:i3,purge:i3,wipe:i3,publish:i3,post:i2,tweet:i3,",
        "reply:i2,forward:i2,comment:i2,share:i2,transfer:i3,confirm:i2,approve:i2,",
        "reject:i2,decline:i2,accept:i2,merge:i2,deploy:i2,release:i2,terminate:i3,",
        "revoke:i3,invite:i2,donate:i3,refund:i3,charge:i3,withdraw:i3,",
        "deposit:i3,book:i2,reserve:i2,subscribe:i2,unsubscribe:i2,vote:i2,report:i2,",
        "ban:i2,kick:i2,reset:i2,empty:i2,drop:i2,kill:i2,shutdown:i2,execute:i2,",
        "launch:i2,sign:i2,upgrade:i2,downgrade:i2,finish:i2,complete:i2,retry:i1,",
        "restart:i2,repost:i2,retweet:i2,reshare:i2,regenerate:i2,rotate:i1,",
    ),
    // Alone, these are ambiguous ("Cancel" may close a form or cancel an order; "Apply"
    // a filter or for a loan): strict and unsure.
    "cancel:i1,apply:i1,",
    // Undoable.
    concat!(
        "archive:w3,unarchive:w3,restore:w2,star:w3,unstar:w3,label:w2,tag:w2,untag:w2,",
        "move:w2,mark:w2,flag:w2,unflag:w2,snooze:w3,pin:w2,unpin:w2,mute:w2,unmute:w2,",
        "like:w2,unlike:w2,favorite:w2,favourite:w2,bookmark:w2,follow:w2,unfollow:w2,",
        "watch:w2,unwatch:w2,save:w2,draft:w2,add:w2,insert:w2,update:w2,rename:w2,toggle:w2,",
        "enable:w2,disable:w2,turn:w2,switch:w2,set:w2,change:w2,assign:w2,unassign:w2,",
        "hide:w2,attach:w2,detach:w2,upload:w1,duplicate:w2,clone:w2,create:w1,new:w1,undo:w2,",
        "redo:w2,check:w1,uncheck:w2,increase:w2,decrease:w2,increment:w2,decrement:w2,",
        "join:w1,leave:w1,block:w1,",
        "unblock:w2,upvote:w2,downvote:w2,login:w2,signin:w2,logout:w2,signout:w2,",
        "signup:w2,register:w1,reorder:w2,schedule:w1,reschedule:w1,resume:w2,",
        "reactivate:w2,activate:w1,unsuspend:w2,pause:w2,unpause:w2,",
        // Doing a read again on the server's side: a new fetch or scan is stored, and
        // nothing is lost.
        "recheck:w2,rescan:w2,refetch:w2,resync:w2,",
    ),
    // A suspension is temporary by its meaning; a deactivation is undone by activating
    // again, but some sites delete what stays deactivated: a weak sign alone.
    "suspend:w2,unlock:w2,lock:w1,unpublish:w2,deactivate:w1,",
    // Changes nothing.
    concat!(
        "search:r3,select:r2,deselect:r2,unselect:r2,find:r2,filter:r2,filters:r2,",
        "open:r2,view:r2,",
    ),
    // An edit control opens an editor; saving is a separate step.
    concat!(
        "edit:r1,sort:r2,show:r2,display:r2,next:r2,previous:r2,prev:r2,back:r2,",
        "refresh:r2,reload:r2,expand:r2,collapse:r2,go:r2,details:r2,more:r2,less:r2,menu:r2,",
        "help:r2,preview:r2,browse:r2,see:r2,download:r2,print:r2,export:r2,zoom:r2,",
        "close:r1,dismiss:r2,read:r2,get:r2,list:r2,fetch:r2,query:r2,lookup:r2,look:r2,",
        "play:r2,copy:r2,today:r2,home:r2,settings:r2,preferences:r2,options:r2,",
    ),
];

/// One lexicon entry: a word or phrase, its tier and strength.
type Entry = (&'static str, Reversibility, Strength);

/// Unpacks lexicon text: `word:TS` entries separated by commas, `T` the tier (`r`
/// read, `w` reversible write, `i` irreversible write) and `S` the strength from 1
/// (weak) to 4 (decisive). Text rather than a table of tuples because a tuple table
/// costs the wasm its pointers, which do not compress.
fn unpack(groups: &'static [&'static str], out: &mut Vec<Entry>) {
    for entry in groups.iter().flat_map(|g| g.split(',')) {
        let Some((word, code)) = entry.rsplit_once(':') else {
            continue;
        };
        let mut c = code.bytes();
        let tier = match c.next() {
            Some(b'r') => Read,
            Some(b'w') => ReversibleWrite,
            _ => IrreversibleWrite,
        };
        let strength = match c.next() {
            Some(b'1') => Weak,
            Some(b'2') => Normal,
            Some(b'3') => Strong,
            _ => Decisive,
        };
        out.push((word, tier, strength));
    }
}

/// The word lexicon, and where each word is in it, by word: built once (classification
/// runs for every control).
struct Words {
    entries: Vec<Entry>,
    /// `(word, position in entries)`, sorted: the type the phrases' `starts` are sorted
    /// as, so that the wasm holds one sort's code for both.
    by_word: Vec<(&'static str, usize)>,
}

fn word_table() -> &'static Words {
    static TABLE: std::sync::OnceLock<Words> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut entries = Vec::new();
        unpack(WORDS, &mut entries);
        let mut by_word: Vec<(&'static str, usize)> =
            entries.iter().enumerate().map(|(i, e)| (e.0, i)).collect();
        by_word.sort_unstable();
        Words { entries, by_word }
    })
}

fn lookup(word: &str) -> Option<(Reversibility, Strength)> {
    let table = word_table();
    table
        .by_word
        .binary_search_by(|(w, _)| (*w).cmp(word))
        .ok()
        .map(|k| {
            let e = &table.entries[table.by_word[k].1];
            (e.1, e.2)
        })
}

/// One phrase of the lexicon, with its words.
struct Phrase {
    text: &'static str,
    words: Vec<&'static str>,
    tier: Reversibility,
    strength: Strength,
}

/// The phrases, longest first, so that a longer phrase claims its words before a phrase
/// inside it can; and where the phrases that start with each word are in that order. A
/// text is only matched against the phrases that start with one of its words
/// (classification runs for every control, on several texts each).
struct Phrases {
    table: Vec<Phrase>,
    /// `(first word, position in table)`, by word, then position.
    starts: Vec<(&'static str, usize)>,
}

fn phrases() -> &'static Phrases {
    static PHRASE_TABLE: std::sync::OnceLock<Phrases> = std::sync::OnceLock::new();
    PHRASE_TABLE.get_or_init(|| {
        let mut all = Vec::new();
        unpack(PHRASES, &mut all);
        let len = |p: &str| p.split(' ').count();
        let longest = all.iter().map(|p| len(p.0)).max().unwrap_or(0);
        // Longest first without a sort (a sort of this type costs the wasm kilobytes).
        let mut table = Vec::with_capacity(all.len());
        for n in (1..=longest).rev() {
            table.extend(
                all.iter()
                    .filter(|p| len(p.0) == n)
                    .map(|&(text, tier, strength)| Phrase {
                        text,
                        words: text.split(' ').collect(),
                        tier,
                        strength,
                    }),
            );
        }
        let mut starts: Vec<(&'static str, usize)> = table
            .iter()
            .enumerate()
            .map(|(i, p)| (p.words[0], i))
            .collect();
        starts.sort_unstable();
        Phrases { table, starts }
    })
}

/// One known word or phrase found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub tier: Reversibility,
    pub strength: Strength,
    pub cue: String,
    /// The cue opens the text.
    pub first: bool,
}

/// Every known word and phrase in `text`, in the order found (phrases first).
pub fn hits(text: &str) -> Vec<Hit> {
    hits_in(text, false)
}

/// The verb a text opens with, when the lexicon knows it ("Toggle metadata": "toggle").
pub fn opening_verb(text: &str) -> Option<String> {
    hits(text).into_iter().find(|h| h.first).map(|h| h.cue)
}

/// A word's base form for the lexicon when it is inflected ("deletes", "archived"),
/// as descriptions write verbs. Not applied to labels, whose plurals are mostly nouns
/// ("Orders", "Posts").
fn base_form(word: &str) -> Option<(Reversibility, Strength)> {
    ["s", "es", "d", "ed"]
        .iter()
        .filter_map(|suffix| word.strip_suffix(suffix))
        .filter(|stem| stem.len() >= 3)
        .find_map(lookup)
}

/// [`hits`], with inflected words too when `inflected`.
pub(super) fn hits_in(text: &str, inflected: bool) -> Vec<Hit> {
    let words = words(text);
    let Phrases { table, starts } = phrases();
    // The phrases that start with one of the text's words, in the table's order: no
    // other phrase can match.
    let mut candidates = Vec::new();
    for word in &words {
        let from = starts.partition_point(|(first, _)| *first < word.as_str());
        candidates.extend(
            starts[from..]
                .iter()
                .take_while(|(first, _)| *first == word.as_str())
                .map(|(_, i)| *i),
        );
    }
    crate::text::sort_indices(&mut candidates);
    candidates.dedup();
    hits_trying(&words, candidates.into_iter().map(|i| &table[i]), inflected)
}

/// The hits in `words` of the phrases tried (in the table's order), then of the single
/// words no phrase claimed.
fn hits_trying<'a>(
    words: &[String],
    tried: impl Iterator<Item = &'a Phrase>,
    inflected: bool,
) -> Vec<Hit> {
    let mut out = Vec::new();
    if words.is_empty() {
        return out;
    }
    // "Yes, publish": the verb after an affirmation names the action, as if it opened
    // the label.
    let lead = usize::from(words.len() > 1 && words[0] == "yes");
    let mut used = vec![false; words.len()];
    for phrase in tried {
        let n = phrase.words.len();
        if n > words.len() {
            continue;
        }
        let at = (0..=words.len() - n).find(|&i| {
            !used[i..i + n].iter().any(|u| *u)
                && words[i..i + n]
                    .iter()
                    .zip(&phrase.words)
                    .all(|(a, b)| a == b)
        });
        if let Some(pos) = at {
            used[pos..pos + n].iter_mut().for_each(|u| *u = true);
            out.push(Hit {
                tier: phrase.tier,
                strength: phrase.strength,
                cue: phrase.text.to_owned(),
                first: pos == lead,
            });
        }
    }
    for (i, word) in words.iter().enumerate() {
        if used[i] {
            continue;
        }
        let found = lookup(word).or_else(|| inflected.then(|| base_form(word)).flatten());
        if let Some((tier, strength)) = found {
            out.push(Hit {
                tier,
                strength,
                cue: word.clone(),
                first: i == lead,
            });
        }
    }
    out
}

/// A phrase made of a short label and the name of its section ("Remove" in the cart:
/// "remove from cart"; "Apply" in the coupon form: "apply coupon"), when one matches.
pub(super) fn section_hits(label: &str, section: &str) -> Option<Vec<Hit>> {
    let n = words(label).len();
    if section.is_empty() || n == 0 || n > 2 {
        return None;
    }
    for glue in ["", "from", "to"] {
        let text = format!("{label} {glue} {section}");
        if let Some(h) = hits(&text)
            .into_iter()
            .find(|h| h.first && h.cue.split(' ').count() > n)
        {
            return Some(vec![h]);
        }
    }
    None
}

/// What the words of `text` say, in short: the strictest tier named, by its strongest
/// cue. `None` when no known word is there.
pub fn from_words(text: &str) -> Option<WordVerdict> {
    let found = hits(text);
    let strictest = found.iter().map(|h| h.tier).max()?;
    let mixed = found.iter().any(|h| h.tier != strictest);
    let best = found
        .into_iter()
        .filter(|h| h.tier == strictest)
        .max_by_key(|h| (h.first, h.strength))?;
    Some(WordVerdict {
        tier: best.tier,
        strength: best.strength,
        cue: best.cue,
        mixed,
        first: best.first,
    })
}

/// Labels of logging in, out and signing up.
pub(super) fn is_authentication(cue: &str) -> bool {
    matches!(
        cue,
        "sign in"
            | "log in"
            | "login"
            | "signin"
            | "sign up"
            | "signup"
            | "create account"
            | "create an account"
            | "register"
            | "sign out"
            | "log out"
            | "logout"
            | "signout"
    )
}

/// Labels of checkboxes that choose items for a later step.
pub(super) fn is_selection(cue: &str) -> bool {
    matches!(cue, "select" | "deselect" | "unselect" | "select all")
}

/// Whether a text opens with ending a session ("Log out", "Sign out"), given its hits.
#[inline(never)]
pub fn logs_out(hits: &[Hit]) -> bool {
    hits.iter().any(|h| h.first && ends_session(&h.cue))
}

/// Labels that end a session.
pub(super) fn ends_session(cue: &str) -> bool {
    matches!(cue, "sign out" | "log out" | "logout" | "signout")
}

/// Verbs of buttons that start something to be filled in.
pub(super) fn opens_editor(cue: &str) -> bool {
    matches!(
        cue,
        "add" | "create" | "compose" | "write" | "reply" | "comment" | "forward"
    )
}

/// Cues of deletion, which a trash or undo can soften.
pub(super) fn is_deletion(cue: &str) -> bool {
    matches!(cue, "delete" | "remove" | "erase" | "discard")
}

/// The strongest hit of each tier in one text (an opening one before a later one when
/// `prefer_first`), indexed by tier: the words of one text are one piece of evidence per
/// tier, not one per word.
pub(super) fn strongest_per_tier(found: &[Hit], prefer_first: bool) -> [Option<&Hit>; 3] {
    let rank = |h: &Hit| (prefer_first && h.first, h.strength);
    let mut best: [Option<&Hit>; 3] = [None; 3];
    for h in found {
        let slot = &mut best[h.tier as usize];
        if slot.is_none_or(|b| rank(h) > rank(b)) {
            *slot = Some(h);
        }
    }
    best
}

/// "Cancel", "No, cancel", "Close", "Dismiss", "Not now": buttons that back out of
/// something; and "Got it", which closes a tip or a notice having read it.
pub fn is_dismiss(label: &str) -> bool {
    let w = words(label);
    matches!(
        w.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        ["cancel"]
            | ["close"]
            | ["dismiss"]
            | ["not", "now"]
            | ["no", "thanks"]
            | ["never", "mind"]
            | ["no", "take", "me", "back"]
            | ["go", "back"]
            | ["no", "cancel"]
            | ["got", "it"]
            | ["ok", "got", "it"]
    )
}

/// A button verb that makes a new, blank item at once ("New", "New note", "New
/// folder"): the item exists as soon as it is pressed, and is deleted like any other.
pub(super) fn makes_item(cue: &str) -> bool {
    cue == "new"
}

/// Words of a submit that sends what a form holds to people: with a field of
/// addresses, the form is a message, not a record.
pub(super) fn sends(label: &str) -> bool {
    words(label).iter().any(|w| {
        matches!(
            w.as_str(),
            "send" | "reply" | "forward" | "share" | "invite" | "email" | "mail" | "message"
        )
    })
}

/// Cues of a submit that stores a record which can be edited or deleted again: saving,
/// creating, adding or updating it, or confirming or discarding an edit of it.
/// Whether `text` opens with a verb that stores a record ("Add a bill", "New ticket")
/// and names no other tier.
pub fn names_storing(text: &str) -> bool {
    let found = hits(text);
    found
        .first()
        .is_some_and(|h| h.first && stores_record(&h.cue))
        && found.iter().all(|h| h.tier == ReversibleWrite)
}

pub(super) fn stores_record(cue: &str) -> bool {
    matches!(
        cue,
        "save"
            | "create"
            | "add"
            | "update"
            | "new"
            | "rename"
            | "change"
            | "save draft"
            | "save as draft"
            | "save changes"
            | "confirm changes"
            | "apply changes"
            | "discard changes"
            | "revert changes"
            | "undo changes"
            | "submit changes"
    )
}

/// Labels that lead back from a step without doing it: those that dismiss
/// ([`is_dismiss`]), and "Back", "No", "Return", "Keep".
pub(super) fn is_back(label: &str) -> bool {
    if is_dismiss(label) {
        return true;
    }
    let w = words(label);
    matches!(
        w.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        ["back"] | ["no"] | ["no", "go", "back"] | ["return"] | ["keep"]
    )
}

/// A label that shows, hides or toggles a part of the interface ("Hide sidebar",
/// "Toggle file filter", "Show preview pane"): it changes what is shown, nothing stored.
pub(super) fn shows_part(label: &str) -> bool {
    let w = words(label);
    let Some((verb, rest)) = w.split_first() else {
        return false;
    };
    shows_verb(verb)
        && rest.iter().any(|x| {
            matches!(
                x.as_str(),
                "sidebar"
                    | "panel"
                    | "pane"
                    | "toolbar"
                    | "filter"
                    | "preview"
                    | "menu"
                    | "drawer"
                    | "fullscreen"
                    | "outline"
                    | "minimap"
                    | "details"
                    | "legend"
                    | "breadcrumbs"
                    | "statusbar"
                    | "sidepanel"
            )
        })
}

/// A verb of showing or hiding: on a menu button, a disclosure or a view toggle it
/// names what is shown, not a change stored.
pub(super) fn shows_verb(cue: &str) -> bool {
    matches!(
        cue,
        "show" | "hide" | "toggle" | "collapse" | "expand" | "open" | "close"
    )
}

/// Words of a change to the form of edited text ("Bold", "Bulleted list", "Heading",
/// "Wrap selection"), as an editor's formatting toolbar names its buttons.
pub(super) fn formats(word: &str) -> bool {
    matches!(
        word,
        "bold"
            | "italic"
            | "underline"
            | "strikethrough"
            | "subscript"
            | "superscript"
            | "monospaced"
            | "heading"
            | "bulleted"
            | "numbered"
            | "formatting"
            | "indent"
            | "outdent"
            | "align"
            | "selection"
            | "blockquote"
    )
}

/// Cues of a second submit that only shows the form's result ("Preview", "Show
/// changes"): the form's real submit is the other one.
pub(super) fn previews(cue: &str) -> bool {
    matches!(cue, "preview" | "show")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`hits_in`] finds when every phrase of the table is tried in order, as it
    /// was before the index by first word: the index must change nothing.
    fn hits_trying_every_phrase(text: &str, inflected: bool) -> Vec<Hit> {
        hits_trying(&words(text), phrases().table.iter(), inflected)
    }

    #[test]
    fn a_text_meets_only_the_phrases_that_start_with_its_words_and_finds_the_same() {
        for text in [
            "Sign out other sessions",
            "Sign out of all devices, then sign in",
            "Log out all other sessions and log out",
            "Yes, delete forever",
            "Save draft and move to trash",
            "Move to archive or move to trash",
            "Delete my account permanently delete",
            "Apply promo code, apply coupon, apply",
            "Remove from cart remove from wishlist",
            "close pull request close issue close",
            "cancel order cancel subscription place your order",
            "",
            "Orders",
            "the the the",
        ] {
            for inflected in [false, true] {
                assert_eq!(
                    hits_in(text, inflected),
                    hits_trying_every_phrase(text, inflected),
                    "{text:?}"
                );
            }
        }
        // The phrase claims its words before the shorter phrase inside it can.
        let found = hits("Sign out other sessions");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].cue, "sign out other sessions");
        assert!(found[0].first);
    }
}
