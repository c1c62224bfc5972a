//! The flow suite: on every app in `fixtures/real/` with a write UI, an agent does the
//! app's ordinary write work (create, edit, change a status, delete through the app's
//! own confirmation) with only the names, parameters and objects of nspd's state
//! (`nsp_tests::flows` says the rules), through the real nspd, headless Chromium and
//! the extension. The app's own database or files are the ground truth; each test
//! asserts 0 unsafe steps and the ground truth exactly, and prints its row of the flow
//! table (how many steps passed the gate without a person: printed, never asserted).
//!
//! Datasette has no write UI (it publishes a database read-only): its flow is a query
//! typed into its SQL editor (CodeMirror 5 over the form's text area), whose rows are
//! checked against the database's own answer to it.

use nsp_tests::flows::{settle, FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::Value;

/// Rows of `sql` as plain JSON, for comparing with what the flow meant to leave.
fn rows(app: &RealApp, sql: &str) -> Vec<Vec<Value>> {
    app.query(sql).expect("the app's database")
}

/// Django's admin (signed in): create a note, edit it (a new title, pinned), delete a
/// seeded note through its confirmation page, delete another with the list's bulk
/// action ("Delete selected notes") given its box while a third's is ticked, and the
/// third with the bulk action on a search result, through the bulk confirmations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn django_admin_create_edit_delete_and_bulk_delete() {
    let app = RealApp::start(
        AppKind::Django,
        RealAppOptions {
            autologin: true,
            ..RealAppOptions::default()
        },
    )
    .expect("django");
    let mut agent = FlowAgent::start("django", &app.url("/admin/notes/note/"))
        .await
        .expect("agent");

    agent
        .run(Step::new("open the add form", &["add", "note"], Tier::Read))
        .await
        .expect("step");
    agent
        .run(
            Step::new("create a note", &["save"], Tier::ReversibleWrite)
                .avoid(&["another", "continue"])
                .param(&["title"], "Renew the passport")
                .param(&["body"], "Before the trip in May"),
        )
        .await
        .expect("step");
    agent
        .run(Step::new("open the new note", &["open"], Tier::Read).on("Renew the passport"))
        .await
        .expect("step");
    agent
        .run(
            Step::new("rename and pin it", &["save"], Tier::ReversibleWrite)
                .avoid(&["another", "continue"])
                .param(&["title"], "Renew the passport and visa")
                .param(&["pinned"], true),
        )
        .await
        .expect("step");
    agent
        .run(Step::new("open a seeded note", &["open"], Tier::Read).on("Book club"))
        .await
        .expect("step");
    agent
        .run(Step::new("open its delete page", &["delete"], Tier::Read))
        .await
        .expect("step");
    agent
        .run(Step::new(
            "confirm the delete",
            &["yes", "sure"],
            Tier::IrreversibleWrite,
        ))
        .await
        .expect("step");
    // The bulk action given the list of boxes to tick (the gate takes a list of the
    // group's values) while another row's box is ticked already: exactly the listed
    // note goes to the confirmation, and only it is deleted.
    let groceries = rows(&app, "select id from notes_note where title = 'Groceries'");
    let groceries = groceries[0][0].to_string();
    agent
        .run(Step::new("tick another note's box", &["select"], Tier::Read).on("Dentist"))
        .await
        .expect("step");
    agent
        .run(
            Step::new("ask to delete one note by its box", &["go"], Tier::Read)
                .record(&["action"], "Delete selected notes")
                .param(&["selected", "action"], serde_json::json!([groceries])),
        )
        .await
        .expect("step");
    agent
        .run(Step::new(
            "confirm deleting that note",
            &["yes", "sure"],
            Tier::IrreversibleWrite,
        ))
        .await
        .expect("step");
    agent
        .run(Step::new("search for a note", &["search"], Tier::Read).param(&["q"], "Dentist"))
        .await
        .expect("step");
    agent
        .run(
            Step::new(
                "select all the results and ask to delete them",
                &["go"],
                // Its effect is to show the bulk confirmation page.
                Tier::Read,
            )
            .record(&["action"], "Delete selected notes")
            .param(&["select", "all"], true),
        )
        .await
        .expect("step");
    agent
        .run(Step::new(
            "confirm the bulk delete",
            &["yes", "sure"],
            Tier::IrreversibleWrite,
        ))
        .await
        .expect("step");

    let notes = rows(
        &app,
        "select title, body, pinned from notes_note order by id",
    );
    agent.finish(
        notes,
        vec![vec![
            "Renew the passport and visa".into(),
            "Before the trip in May".into(),
            1.into(),
        ]],
    );
}

/// Django's admin with autocomplete fields (the site's `tasks` app): a task's category
/// is drawn by the Select2 widget Django ships, its `<select>` hidden, its options
/// fetched from the server 20 at a time; its labels are the same widget keeping many
/// choices, each a tag. File a task under "Travel", the 25th category, which shows only
/// once typed into the widget's search box, with two labels; then another under "Area
/// 02", on the first page, with none. The tasks table holds exactly both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn django_admin_autocomplete_field_through_its_search() {
    let app = RealApp::start(
        AppKind::Django,
        RealAppOptions {
            autologin: true,
            tasks: true,
        },
    )
    .expect("django");
    let mut agent = FlowAgent::start("django-autocomplete", &app.url("/admin/tasks/task/add/"))
        .await
        .expect("agent");
    agent
        .run(
            Step::new(
                "file a task under Travel, then add another",
                &["save", "another"],
                Tier::ReversibleWrite,
            )
            .param(&["title"], "Book the train")
            .param(&["category"], "Travel")
            .param(&["labels"], serde_json::json!(["paperwork", "errand"])),
        )
        .await
        .expect("step");
    agent
        .run(
            Step::new(
                "file another under Area 02",
                &["save"],
                Tier::ReversibleWrite,
            )
            .avoid(&["another", "continue"])
            .param(&["title"], "Renew the lease")
            .param(&["category"], "Area 02"),
        )
        .await
        .expect("step");
    let tasks = rows(
        &app,
        "select t.title, c.name, (select group_concat(name, ',') from \
         (select l.name from tasks_task_labels tl join tasks_label l on l.id = tl.label_id \
         where tl.task_id = t.id order by l.name)) \
         from tasks_task t left join tasks_category c on c.id = t.category_id order by t.id",
    );
    agent.finish(
        tasks,
        vec![
            vec![
                "Book the train".into(),
                "Travel".into(),
                "errand,paperwork".into(),
            ],
            vec!["Renew the lease".into(), "Area 02".into(), Value::Null],
        ],
    );
}

/// Flask-Admin: create a contact, edit it (a new city), and delete a seeded contact by
/// selecting its row and choosing "With selected" → "Delete" (the page's own `confirm()`
/// answered by nspd for a verified irreversible write).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flask_admin_create_edit_and_delete() {
    let app = RealApp::start(AppKind::FlaskAdmin, RealAppOptions::default()).expect("flask-admin");
    let mut agent = FlowAgent::start("flask-admin", &app.url("/admin/contact/"))
        .await
        .expect("agent");

    agent
        .run(Step::new("open the create form", &["create"], Tier::Read).avoid(&["items"]))
        .await
        .expect("step");
    agent
        .run(
            Step::new("create a contact", &["save"], Tier::ReversibleWrite)
                .avoid(&["another", "continue"])
                .param(&["name"], "Katherine Johnson")
                .param(&["email"], "katherine@example.com")
                .param(&["city"], "Hampton"),
        )
        .await
        .expect("step");
    agent
        .run(Step::new("open it", &["edit"], Tier::Read).on("Katherine Johnson"))
        .await
        .expect("step");
    agent
        .run(
            Step::new("move it to another city", &["save"], Tier::ReversibleWrite)
                .avoid(&["another", "continue"])
                .param(&["name"], "Katherine Johnson")
                .param(&["email"], "katherine@example.com")
                .param(&["city"], "White Sulphur Springs"),
        )
        .await
        .expect("step");
    agent
        .run(
            Step::new("select a seeded contact", &["select"], Tier::Read)
                .avoid(&["all"])
                .on("Alan Turing")
                .verify(nsp_tests::flows::Verify::None),
        )
        .await
        .expect("step");
    agent
        .run(Step::new(
            "open the bulk menu",
            &["with", "selected"],
            Tier::Read,
        ))
        .await
        .expect("step");
    agent
        .run(Step::new(
            "delete the selected contacts",
            &["delete"],
            Tier::IrreversibleWrite,
        ))
        .await
        .expect("step");

    let contacts = rows(&app, "select name, email, city from contact order by id");
    let row = |n: &str, e: &str, c: &str| vec![Value::from(n), e.into(), c.into()];
    agent.finish(
        contacts,
        vec![
            row("Ada Lovelace", "ada@example.com", "London"),
            row("Grace Hopper", "grace@example.com", "Arlington"),
            row(
                "Katherine Johnson",
                "katherine@example.com",
                "White Sulphur Springs",
            ),
        ],
    );
}

/// The person's hand, for a step the state offers no action for: `find(title)` is the
/// todo's row (`li`) by its label.
const TODO_ROW: &str = "const row = (title) => Array.from(document.querySelectorAll('.todo-list li')).find((li) => li.querySelector('label')?.textContent === title);\
     const until = async (ok) => { for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50)); if (!ok()) throw new Error('the page did not change'); };";

/// React TodoMVC: add a todo, mark it complete, rename another (double-click, type,
/// Enter), delete a third, and clear the completed ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todomvc_add_toggle_rename_delete_and_clear() {
    let app = RealApp::start(AppKind::TodoMvc, RealAppOptions::default()).expect("todomvc");
    let mut agent = FlowAgent::start("todomvc", &app.url("/"))
        .await
        .expect("agent");

    agent
        .run(
            Step::new("add a todo", &["new", "todo"], Tier::ReversibleWrite)
                .param(&["new", "todo"], "Water the plants"),
        )
        .await
        .expect("step");
    agent
        .run_or_person(
            Step::new("mark it complete", &["toggle"], Tier::ReversibleWrite)
                .avoid(&["all"])
                .on("Water the plants"),
            &format!(
                "{TODO_ROW} row('Water the plants').querySelector('input.toggle').click();\
                 await until(() => row('Water the plants').classList.contains('completed'));"
            ),
        )
        .await
        .expect("step");
    agent
        .run_or_person(
            Step::new("rename a todo", &["edit"], Tier::ReversibleWrite)
                .on("Buy milk")
                .param(&["title"], "Buy oat milk"),
            &format!(
                "{TODO_ROW} row('Buy milk').querySelector('label').dispatchEvent(new MouseEvent('dblclick', {{bubbles: true}}));\
                 await until(() => document.querySelector('.todo-list input.edit'));\
                 const input = document.querySelector('.todo-list input.edit');\
                 Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, 'Buy oat milk');\
                 input.dispatchEvent(new Event('input', {{bubbles: true}}));\
                 input.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter', bubbles: true}}));\
                 await until(() => row('Buy oat milk'));"
            ),
        )
        .await
        .expect("step");
    agent
        .run_or_person(
            Step::new("delete a todo", &["delete"], Tier::IrreversibleWrite).on("Call the plumber"),
            &format!(
                "{TODO_ROW} row('Call the plumber').querySelector('button.destroy').click();\
                 await until(() => !row('Call the plumber'));"
            ),
        )
        .await
        .expect("step");
    agent
        .run(Step::new(
            "clear the completed todos",
            &["clear", "completed"],
            Tier::IrreversibleWrite,
        ))
        .await
        .expect("step");

    let todos = rows(&app, "select title, completed from todos order by id");
    agent.finish(todos, vec![vec![Value::from("Buy oat milk"), 0.into()]]);
}

/// The React ticket form: file a ticket (a controlled input, a contenteditable message,
/// a custom listbox). Its true tier is a judgement: this small app shows no list to edit
/// or close tickets in, but a ticket is a record a tracker keeps editable and closable,
/// as the issue counts a tracker's "Create ticket" (a stray one is closed, nothing is
/// sent to anyone), so it is labelled a reversible write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react_form_files_a_ticket() {
    let app = RealApp::start(AppKind::ReactForm, RealAppOptions::default()).expect("react-form");
    let mut agent = FlowAgent::start("react-form", &app.url("/"))
        .await
        .expect("agent");

    agent
        .run(
            Step::new("file a ticket", &["save", "ticket"], Tier::ReversibleWrite)
                .param(&["subject"], "Printer on the 2nd floor jams")
                .param(&["message"], "Every duplex job, since Monday.")
                .record(&["priority"], "High"),
        )
        .await
        .expect("step");

    let tickets = rows(
        &app,
        "select subject, message, priority from tickets order by id",
    );
    agent.finish(
        tickets,
        vec![vec![
            Value::from("Printer on the 2nd floor jams"),
            "Every duplex job, since Monday.".into(),
            "High".into(),
        ]],
    );
}

/// Radicale's web UI (any user name and password: the server runs without
/// authentication): sign in, create an address book, rename it, and delete it through
/// the delete page, which asks for a typed phrase. The storage folder is the ground
/// truth, read after the rename and at the end. (Radicale's "Create" works only through
/// its button's click handler: the flow is also the test that dispatch clicks a form's
/// submit button rather than submitting the form.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn radicale_create_rename_and_delete_an_address_book() {
    let app = RealApp::start(AppKind::Radicale, RealAppOptions::default()).expect("radicale");
    let mut agent = FlowAgent::start("radicale", &app.url("/.web/"))
        .await
        .expect("agent");
    agent
        .run(
            Step::new("sign in", &["next"], Tier::ReversibleWrite)
                .param(&["username"], "alice")
                .param(&["password"], "wonderland"),
        )
        .await
        .expect("step");
    agent
        // Opening a scene of this single-page app shows fields that were hidden, so not
        // in the state before (a hidden part of the page is not state): nothing of the
        // state before can say it opened. The next step's action is the check.
        .run(Step::new("open the create form", &["create", "new"], Tier::Read).verify(Verify::None))
        .await
        .expect("step");
    agent
        .run(
            Step::new("create an address book", &["create"], Tier::ReversibleWrite)
                .param(&["title"], "Family")
                .param(&["description"], "Birthdays and addresses"),
        )
        .await
        .expect("step");
    agent
        .run(Step::new("open its edit form", &["edit"], Tier::Read).verify(Verify::None))
        .await
        .expect("step");
    agent
        .run(
            Step::new("rename it", &["save"], Tier::ReversibleWrite)
                .param(&["title"], "Family and friends"),
        )
        .await
        .expect("step");
    // Radicale saves after the scene closes: wait (bounded) for the new name to land.
    let renamed = settle(
        || app.radicale_collections().expect("radicale's storage"),
        |c| c.iter().any(|(_, name, _)| name == "Family and friends"),
        std::time::Duration::from_secs(10),
    )
    .await;
    agent
        .run(Step::new("open its delete page", &["delete"], Tier::Read))
        .await
        .expect("step");
    // The phrase to type is the one the page asks for, which the box's parameter quotes
    // in its description (nothing else names the box).
    let state = agent.state().await.expect("state");
    let phrase = state["actions"]["delete"]["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["description"].as_str())
        .find_map(|d| d.split("the phrase ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_owned);
    // Without the phrase the agent cannot go on; it asks for a parameter the state does
    // not have, and the person does the step.
    let (words, phrase) = match phrase {
        Some(p) => (["text"], p),
        None => (["phrase"], String::new()),
    };
    agent
        .run_or_person(
            Step::new("type the phrase and delete", &["delete"], Tier::IrreversibleWrite)
                .param(&words, phrase),
            "const scene = document.getElementById('deleteconfirmationscene');\
             const phrase = scene.querySelector('[data-name=deleteconfirmationtext]').textContent;\
             const box = scene.querySelector('[data-name=confirmationtxt]');\
             box.value = phrase; box.dispatchEvent(new Event('input', {bubbles: true}));\
             scene.querySelector('[data-name=delete]').click();\
             for (let i = 0; i < 100 && !scene.classList.contains('hidden'); i++) await new Promise((r) => setTimeout(r, 50));",
        )
        .await
        .expect("step");

    let user = |d: &str, desc: &str| ("alice".to_owned(), d.to_owned(), desc.to_owned());
    agent.finish(
        (
            renamed,
            app.radicale_collections().expect("radicale's storage"),
        ),
        (
            vec![user("Family and friends", "Birthdays and addresses")],
            vec![],
        ),
    );
}

/// Not a check: prints the table of every app's last flow report under `target/flows/`,
/// with totals (`cargo test -p nsp-tests --test flows -- --ignored --nocapture
/// the_flow_table`, after the flows ran).
#[test]
#[ignore = "prints the table of the reports the flows wrote; run it after them"]
fn the_flow_table() {
    println!(
        "{}",
        nsp_tests::flows::table_of_written_reports().expect("the flows' reports")
    );
}

/// The wiki's own tiddlers as (title, tags, text), from the `.tid` files its server wrote.
fn tiddlers(app: &RealApp) -> Vec<(String, Vec<String>, String)> {
    app.tiddlers()
        .expect("the wiki folder")
        .into_values()
        .map(|t| (t.tags(), t.text.clone(), t.title))
        .map(|(tags, text, title)| (title, tags, text))
        .collect()
}

/// TiddlyWiki 5 (its Node.js server; icon buttons named only by title/aria-label):
/// delete a seeded tiddler from its "more" menu through the page's own `confirm()`, edit
/// another's text and tag it, and write a new tiddler. The `.tid` files are the ground
/// truth after every write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tiddlywiki_delete_edit_and_create() {
    let app = RealApp::start(AppKind::TiddlyWiki, RealAppOptions::default()).expect("tiddlywiki");
    let mut agent = FlowAgent::start("tiddlywiki", &app.url("/"))
        .await
        .expect("agent");
    let t = |title: &str, tags: &[&str], text: &str| {
        (
            title.to_owned(),
            tags.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            text.to_owned(),
        )
    };
    let book_club = t(
        "Book club",
        &["Reading"],
        "Read chapter 4 of Kindred before Friday.",
    );
    let groceries = t("Groceries", &["Shopping"], "Milk, eggs, bread and coffee.");
    let mut seen = Vec::new();
    let mut expected = Vec::new();

    // Delete Dentist: close the open tiddlers, open it from the sidebar's Recent tab,
    // and choose "delete" in its "more" menu (TiddlyWiki asks with confirm()).
    agent
        .run(Step::new(
            "close the open tiddlers",
            &["close", "all"],
            Tier::Read,
        ))
        .await
        .expect("step");
    agent
        .run(Step::new("show the recent tiddlers", &["tab"], Tier::Read).record(&["tab"], "Recent"))
        .await
        .expect("step");
    // Opening a tiddler adds its frame: no object of the state before names it.
    agent
        .run(Step::new("open Dentist", &["dentist"], Tier::Read).verify(Verify::None))
        .await
        .expect("step");
    agent
        .run(Step::new("open its menu", &["more"], Tier::Read).avoid(&["tab"]))
        .await
        .expect("step");
    agent
        .run(Step::new("delete it", &["delete"], Tier::IrreversibleWrite))
        .await
        .expect("step");
    seen.push(tiddlers(&app));
    expected.push(vec![book_club.clone(), groceries.clone()]);

    // Edit Groceries: opening the editor writes "Draft of 'Groceries'" to the server.
    agent
        .run(Step::new("open Groceries", &["groceries"], Tier::Read).verify(Verify::None))
        .await
        .expect("step");
    agent
        // Groceries' frame: the only one open, or (while another frame is still leaving
        // the story under load) the row of the two that shows it.
        .run(
            Step::new("edit it", &["edit"], Tier::ReversibleWrite)
                .on("Groceries")
                .verify(Verify::None),
        )
        .await
        .expect("step");
    agent
        .run(
            Step::new(
                "save a new text with a tag",
                &["confirm", "changes"],
                Tier::ReversibleWrite,
            )
            .param(&["tiddler"], "Milk, eggs, bread, coffee and tea.")
            .param(&["tag"], "Done"),
        )
        .await
        .expect("step");
    seen.push(tiddlers(&app));
    let groceries = t(
        "Groceries",
        &["Shopping", "Done"],
        "Milk, eggs, bread, coffee and tea.",
    );
    expected.push(vec![book_club.clone(), groceries.clone()]);

    // "new tiddler" writes "Draft of 'New Tiddler'" to the server as the editor opens;
    // its effect is a new editor, which no object of the state before it names.
    agent
        .run(
            Step::new(
                "start a new tiddler",
                &["new", "tiddler"],
                Tier::ReversibleWrite,
            )
            .verify(Verify::None),
        )
        .await
        .expect("step");
    agent
        .run(
            Step::new("write it", &["confirm", "changes"], Tier::ReversibleWrite)
                .param(&["tiddler"], "Call on Monday about the leak."),
        )
        .await
        .expect("step");
    seen.push(tiddlers(&app));
    let plumber = t("New Tiddler", &[], "Call on Monday about the leak.");
    expected.push(vec![book_club, groceries, plumber]);

    agent.finish(seen, expected);
}

/// Jupyter Notebook 7's file browser (a workbench of Lumino panels, a file listing and
/// icon toolbars): create a folder from the "New" menu, duplicate a file, delete the
/// copy through the app's "Delete" dialog (renaming waits for the listing's inline
/// name editor to be offered). The files under the server's root dir are the ground
/// truth after every write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notebook_new_folder_duplicate_and_delete() {
    use nsp_tests::flows::Verify;
    let app = RealApp::start(AppKind::Notebook, RealAppOptions::default()).expect("notebook");
    let mut agent = FlowAgent::start("notebook", &app.url("/tree"))
        .await
        .expect("agent");
    let files = |app: &RealApp| app.files().expect("the root dir");
    let mut expected: std::collections::BTreeMap<String, Option<String>> = [
        ("dentist.md", Some("# Dentist\n\nTuesday at 9:30\n")),
        ("docs", None),
        ("docs/book-club.txt", Some("Read chapter 4\n")),
        ("groceries.txt", Some("Milk, eggs, bread\n")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.map(str::to_owned)))
    .collect();
    let mut seen = Vec::new();
    let mut want = Vec::new();

    // A new folder from the "New" menu: Jupyter creates "Untitled Folder" and opens its
    // name for editing in the listing; the agent types a name, which Jupyter saves when
    // the editor loses focus (here: when the agent selects the next row).
    agent
        .run(
            Step::new("open the New menu", &["new"], Tier::Read)
                .avoid(&["file", "folder", "console"])
                // Its effect is a menu: no object of the state before it names one.
                .verify(Verify::None),
        )
        .await
        .expect("step");
    agent
        .run(Step::new(
            "create a folder",
            &["new", "folder"],
            Tier::ReversibleWrite,
        ))
        .await
        .expect("step");
    seen.push(files(&app));
    expected.insert("Untitled Folder".into(), None);
    want.push(expected.clone());
    agent
        .run(
            Step::new("name the folder", &["fill", "text"], Tier::ReversibleWrite)
                .param(&["text"], "Receipts")
                .verify(Verify::None),
        )
        .await
        .expect("step");

    // Duplicate groceries.txt: clear the selection (the name editor closes and saves;
    // the new folder stays selected), select its row, "Duplicate" (Jupyter names the
    // copy).
    agent
        .run(
            Step::new("clear the selection", &["deselect", "all"], Tier::Read)
                .param(&["checked"], true),
        )
        .await
        .expect("step");
    agent
        .run(
            Step::new("select groceries.txt", &["select"], Tier::Read)
                .avoid(&["all"])
                .on("groceries.txt"),
        )
        .await
        .expect("step");
    seen.push(files(&app));
    expected.remove("Untitled Folder");
    expected.insert("Receipts".into(), None);
    want.push(expected.clone());
    agent
        .run(Step::new(
            "duplicate it",
            &["duplicate"],
            Tier::ReversibleWrite,
        ))
        .await
        .expect("step");
    seen.push(files(&app));
    expected.insert(
        "groceries-Copy1.txt".into(),
        Some("Milk, eggs, bread\n".into()),
    );
    want.push(expected.clone());

    // Delete the copy: only its row selected (Jupyter may leave the duplicate's source
    // or the copy selected, so the selection is cleared first, never toggled blind),
    // "Delete", then the dialog's "Delete".
    agent
        .run(
            Step::new(
                "clear the selection again",
                &["deselect", "all"],
                Tier::Read,
            )
            .param(&["checked"], true),
        )
        .await
        .expect("step");
    agent
        .run(
            Step::new("select the copy", &["select"], Tier::Read)
                .avoid(&["all"])
                .on("groceries-Copy1.txt"),
        )
        .await
        .expect("step");
    agent
        .run(Step::new("open the delete dialog", &["delete"], Tier::Read))
        .await
        .expect("step");
    // The dialog is modal: behind it the toolbar is out of a person's reach, so the state
    // offers the dialog's own buttons, and its "Delete" is plain `delete`.
    agent
        .run(Step::new(
            "delete it (the dialog's Delete)",
            &["delete"],
            Tier::IrreversibleWrite,
        ))
        .await
        .expect("step");
    // The server deletes after the dialog closes: wait (bounded) for the file to go.
    let left = settle(
        || files(&app),
        |f| !f.contains_key("groceries-Copy1.txt"),
        std::time::Duration::from_secs(10),
    )
    .await;
    seen.push(left);
    expected.remove("groceries-Copy1.txt");
    want.push(expected.clone());

    // Renaming (Jupyter's "Rename" turns the row's name into an inline text box) is
    // not in this flow yet: that text box is not offered as a parameter of anything.

    agent.finish(seen, want);
}

/// Datasette: the agent runs a query of its own through the database page's form,
/// whose SQL box is CodeMirror 5 drawn over the text area the form submits (the
/// parameter `sql`; without CodeMirror support the form took none). The rows the state
/// then shows must be the database's own answer to that query: the query the agent
/// typed is the one that ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn datasette_runs_a_query_typed_into_its_codemirror_editor() {
    const SQL: &str = "select title, author from books\nwhere year > 1970\norder by title";
    let app = RealApp::start(AppKind::Datasette, RealAppOptions::default()).expect("datasette");
    let mut agent = FlowAgent::start("datasette", &app.url("/library"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    agent
        .run(Step::new("run a query", &["run", "sql"], Tier::Read).param(&["sql"], SQL))
        .await
        .unwrap_or_else(log);
    let state = agent.state().await.unwrap_or_else(log);
    let objects = &state["objects"];
    // The query as the editor shows it now, lines and all, and its rows.
    assert_eq!(
        objects["library.sql"], SQL,
        "the editor's text: {objects:#}"
    );
    let shown: Vec<Vec<Value>> = (0..)
        .map(|i| {
            let cell = |c: &str| objects[format!("library.rows[{i}].{c}")].clone();
            vec![cell("title"), cell("author")]
        })
        .take_while(|r| !r[0].is_null())
        .collect();
    agent.finish(shown, rows(&app, SQL));
}
