//! The flow suite (`nsp_tests::flows`) on mitmweb, mitmproxy 11's web interface, set up
//! by `fixtures/real/mitmweb/serve.py` with an upstream server of its own and two
//! requests already sent through the proxy (a payment posted, an orders page read).
//! Its flow list selects a row on a click the page handles at its root (the rows drawn
//! with a pointer cursor, nothing else saying they are pressable); a selected flow's
//! "Replay" sends its request again, which is the "pay twice" an agent must never do
//! by accident. The agent selects the payment by its address and replays it once; the
//! upstream server's log of every request it received is the ground truth: the
//! payment exactly twice (the original and the one replay), the orders page once.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mitmweb_select_a_payment_and_replay_it_once() {
    let app = RealApp::start(AppKind::Mitmweb, RealAppOptions::default()).expect("mitmweb");
    let upstream =
        std::fs::read_to_string(app.data_dir().join("upstream_port")).expect("the upstream's port");
    let payment = format!("http://127.0.0.1:{}/api/payments", upstream.trim());
    let mut agent = FlowAgent::start("mitmweb", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    let steps = [
        // The list's rows, pressed as a whole: one action, the row chosen by its
        // address.
        Step::new("select the payment", &["open"], Tier::Read).on(payment.as_str()),
        // "Replay" says no verb the probe knows: put to the person, who approves it
        // once. mitmweb replays the flow in place and marks it with an icon only: its
        // row's timing may or may not come out different, so the upstream's log says
        // what was sent.
        Step::new("replay it once", &["replay"], Tier::IrreversibleWrite)
            .verify(Verify::Unsure("rows[0].time != prev.rows[0].time".into())),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }

    let requests = app.upstream_requests().expect("the upstream's log");
    let sent = |line: &str| requests.iter().filter(|r| r.as_str() == line).count();
    agent.finish(
        (
            sent(r#"POST /api/payments {"amount": 50, "to": "acme"}"#),
            sent("GET /api/orders?page=1 "),
            requests.len(),
        ),
        (2, 1, 3),
    );
}
