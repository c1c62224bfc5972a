//! The read fast path, end to end: headless Chromium (driven by chromedriver) with the
//! built extension and a real nspd, and pages served by this test on 127.0.0.1. Each
//! tab's content script sets up a direct MessagePort to the service worker through a
//! short-lived channel.html frame; `read_text` travels on it instead of the runtime port.
//!
//! What must hold:
//! - on an ordinary page the direct channel comes up, the frame leaves the page, and
//!   `read_text` returns the page's live text (changed by the page after the capture);
//! - a page whose CSP forbids frames still gets the channel (Chromium exempts an
//!   extension's own frames from the page's CSP);
//! - where the page points our frame at a page of its own, nothing is delivered to the
//!   page, the frame still goes, and reads answer (over the runtime port as before, or
//!   over the channel when our page committed in the frame before the page's retargeting);
//! - a page that frames channel.html itself and offers a port with a made-up token gets
//!   nothing on it, and the tab's own channel still comes up;
//! - after the service worker is stopped (as chrome://serviceworker-internals does), the
//!   channel comes back and reads go on.
//!
//! The page's own DOM (read over the DevTools protocol) is the ground truth for what a
//! read must return; the service worker's status (as the popup reads it) says which
//! channel a tab has.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response};
use nsp_protocol::EXTENSION_ID;
use nsp_tests::faults::Cdp;
use nsp_tests::{
    extension_dir, fresh_data_dir, open_tab_from_popup, popup_url, Nspd, WebDriver,
    WebDriverOptions,
};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
const CHANNEL_TIMEOUT: Duration = Duration::from_secs(20);

const BODY: &str = r#"<h1>Stock</h1><p>On hand: <span id="count">forty-two</span></p>
<form action="/save" method="post"><label>Note <input name="note"></label><button type="submit">Save</button></form>"#;

/// Points every frame of our extension that the page sees at a page of its own (which
/// records whatever it is sent), and counts frames and messages.
const HIJACK: &str = r#"<script>
window.caught = [];
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) {
    if (n.localName === "iframe" && String(n.src).startsWith("chrome-extension:")) n.src = "/catcher";
  }
}).observe(document.documentElement, { childList: true, subtree: true });
</script>"#;

/// Frames channel.html itself and offers a port with a token of its own making.
const SPOOF: &str = r#"<script>
window.portGot = 0;
window.spoofed = false;
addEventListener("load", () => {
  const f = document.createElement("iframe");
  f.src = "chrome-extension://EXTENSION_ID/channel.html";
  f.onload = () => {
    for (let i = 0; i < 3; i++) {
      const pipe = new MessageChannel();
      pipe.port1.onmessage = () => { window.portGot++; };
      f.contentWindow.postMessage({ type: "nsp_channel", token: crypto.randomUUID() }, "*", [pipe.port2]);
    }
    window.spoofed = true;
  };
  document.body.appendChild(f);
});
</script>"#;

const CATCHER: &str = r#"<!doctype html><script>
addEventListener("message", (e) => parent.caught.push({ data: e.data, ports: e.ports.length }));
</script>"#;

/// A page: its path, its CSP header (if any) and its HTML.
struct Page {
    path: &'static str,
    csp: Option<&'static str>,
    html: String,
}

fn pages() -> Vec<Page> {
    let doc = |title: &str, head: &str| {
        format!("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>{head}</head><body>{BODY}</body></html>")
    };
    vec![
        Page {
            path: "/plain",
            csp: None,
            html: doc("Plain", ""),
        },
        Page {
            path: "/noframes",
            csp: Some("frame-src 'none'; child-src 'none'"),
            html: doc("No frames", ""),
        },
        Page {
            path: "/hijack",
            csp: None,
            html: doc("Hijack", HIJACK),
        },
        Page {
            path: "/spoof",
            csp: None,
            html: doc("Spoof", &SPOOF.replace("EXTENSION_ID", EXTENSION_ID)),
        },
        Page {
            path: "/catcher",
            csp: None,
            html: CATCHER.to_owned(),
        },
    ]
}

/// Serves `pages` on 127.0.0.1 until dropped.
struct PageServer {
    port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PageServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve_pages(pages: Vec<Page>) -> Result<PageServer> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let pages: Arc<HashMap<&'static str, Page>> =
        Arc::new(pages.into_iter().map(|p| (p.path, p)).collect());
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let pages = pages.clone();
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                        let pages = pages.clone();
                        async move {
                            let mut resp = match pages.get(req.uri().path()) {
                                Some(page) => {
                                    let mut r =
                                        Response::new(Full::new(Bytes::from(page.html.clone())));
                                    r.headers_mut().insert(
                                        "content-type",
                                        "text/html; charset=utf-8".parse().expect("header"),
                                    );
                                    if let Some(csp) = page.csp {
                                        r.headers_mut().insert(
                                            "content-security-policy",
                                            csp.parse().expect("header"),
                                        );
                                    }
                                    r
                                }
                                None => Response::new(Full::new(Bytes::from_static(b"not here"))),
                            };
                            if !pages.contains_key(req.uri().path()) {
                                *resp.status_mut() = hyper::StatusCode::NOT_FOUND;
                            }
                            Ok::<_, Infallible>(resp)
                        }
                    });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(PageServer { port, task })
}

/// Whether the service worker has a direct channel to the tab at `url`, as the popup
/// reads its status.
async fn direct_channel(browser: &WebDriver, url: &str) -> Result<bool> {
    let status = browser
        .eval(
            "return await chrome.runtime.sendMessage({ type: 'popup_status' });",
            json!([]),
        )
        .await?;
    for tab in status["tabs"].as_array().into_iter().flatten() {
        if tab["url"] == url {
            return tab["direct_channel"]
                .as_bool()
                .context("no direct_channel in the tab's status");
        }
    }
    bail!("no tab at {url} in the service worker's status: {status}")
}

async fn wait_direct(browser: &WebDriver, url: &str) {
    let deadline = Instant::now() + CHANNEL_TIMEOUT;
    loop {
        match direct_channel(browser, url).await {
            Ok(true) => return,
            other => assert!(
                Instant::now() < deadline,
                "no direct channel to {url} after {CHANNEL_TIMEOUT:?}: {other:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Evaluates `expr` in the page's main world until `done` accepts its value.
async fn wait_page(
    cdp: &mut Cdp,
    url: &str,
    expr: &str,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + CHANNEL_TIMEOUT;
    loop {
        let v = cdp
            .eval_in_page(url, expr)
            .await
            .expect("evaluate in the page");
        if done(&v) {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "{what} on {url}: still {v} after {CHANNEL_TIMEOUT:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Our channel frame hangs right under `<html>`; the spoofing page's own is in `<body>`.
const OUR_FRAMES: &str = "document.querySelectorAll('html > iframe').length";

/// Changes the page's counter to `text` and reads it back through nspd.
async fn read_after_change(nspd: &Nspd, cdp: &mut Cdp, url: &str, pid: u64, text: &str) {
    cdp.eval_in_page(
        url,
        &format!(
            "document.getElementById('count').textContent = {}; true",
            json!(text)
        ),
    )
    .await
    .expect("change the page");
    let (status, resp) = nspd
        .act(&json!({"pid": pid, "action": "read_text", "parameters": {"selector": "#count"}}))
        .await
        .expect("read_text");
    assert_eq!(status, 200, "read_text on {url}: {resp}");
    assert_eq!(resp["raw_return"], text, "read_text on {url}: {resp}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_take_the_direct_channel_where_it_is_safe_and_the_runtime_port_elsewhere() {
    let server = serve_pages(pages()).await.expect("page server");
    let base = format!("http://127.0.0.1:{}", server.port);
    let data_dir = fresh_data_dir().expect("tempdir");
    let nspd = Nspd::serve(0, data_dir).expect("nspd");
    let browser = WebDriver::start(&WebDriverOptions {
        extension: Some(extension_dir().expect("built extension")),
        daemon_ws_url: Some(format!(
            "ws://127.0.0.1:{}/substrate/v1/extension",
            nspd.port()
        )),
        window_size: None,
        ..WebDriverOptions::default()
    })
    .await
    .expect("chromedriver with the extension");
    let mut cdp = Cdp::connect(&browser.devtools_ws_url().await.expect("devtools url"))
        .await
        .expect("DevTools");

    browser.goto(&popup_url()).await.expect("open the popup");
    let mut pids = HashMap::new();
    for path in ["/plain", "/noframes", "/hijack", "/spoof"] {
        let url = format!("{base}{path}");
        let (_, app) = open_tab_from_popup(&browser, &nspd, &url, true, TAB_TIMEOUT)
            .await
            .expect("the tab's probe is active in nspd");
        pids.insert(path, (url, app.pid));
    }

    // An ordinary page: the channel comes up and its frame leaves the page.
    let (plain, plain_pid) = pids["/plain"].clone();
    wait_direct(&browser, &plain).await;
    wait_page(&mut cdp, &plain, OUR_FRAMES, "our frame", |v| v == 0).await;
    read_after_change(&nspd, &mut cdp, &plain, plain_pid, "forty-three").await;
    read_after_change(&nspd, &mut cdp, &plain, plain_pid, "forty-four").await;
    // The frame was never part of the page's state: nspd's capture of it lists the
    // page's own form and nothing framed.
    let (status, state) = nspd
        .get(&format!("/substrate/v1/state/{plain_pid}"))
        .await
        .expect("state");
    assert_eq!(status, 200, "{state}");
    let text = state.to_string();
    assert!(
        !text.contains("channel.html") && !text.contains("NSP channel"),
        "{state}"
    );

    // A page whose CSP forbids frames: Chromium lets an extension's own frame through
    // (measured here), so the channel comes up there too.
    let (noframes, noframes_pid) = pids["/noframes"].clone();
    wait_direct(&browser, &noframes).await;
    wait_page(&mut cdp, &noframes, OUR_FRAMES, "our frame", |v| v == 0).await;
    read_after_change(
        &nspd,
        &mut cdp,
        &noframes,
        noframes_pid,
        "under a strict CSP",
    )
    .await;

    // A page that points our frame at a page of its own: nothing reaches the page, the
    // frame goes, and reads answer. Mostly the page's observer retargets the frame
    // before our page commits in it, and reads take the runtime port; on a loaded
    // machine our page may commit first (the retargeting is a second navigation), and
    // then the channel is ours and comes up: either is right, so which one is not
    // asserted (a CI run on a busy machine saw the second).
    let (hijack, hijack_pid) = pids["/hijack"].clone();
    wait_page(&mut cdp, &hijack, OUR_FRAMES, "our frame", |v| v == 0).await;
    let direct = direct_channel(&browser, &hijack).await.expect("status");
    read_after_change(
        &nspd,
        &mut cdp,
        &hijack,
        hijack_pid,
        if direct {
            "over our own channel"
        } else {
            "over the runtime port"
        },
    )
    .await;
    let caught = cdp
        .eval_in_page(&pids["/hijack"].0, "window.caught")
        .await
        .expect("caught");
    assert_eq!(caught, json!([]), "the page's own frame was sent something");

    // A page offering its own ports with made-up tokens gets nothing on them, and its
    // tab's own channel comes up all the same.
    let (spoof, spoof_pid) = pids["/spoof"].clone();
    wait_page(
        &mut cdp,
        &spoof,
        "window.spoofed",
        "the page's own offers",
        |v| v == true,
    )
    .await;
    wait_direct(&browser, &spoof).await;
    wait_page(&mut cdp, &spoof, OUR_FRAMES, "our frame", |v| v == 0).await;
    read_after_change(&nspd, &mut cdp, &spoof, spoof_pid, "not yours").await;
    let got = cdp
        .eval_in_page(&spoof, "window.portGot")
        .await
        .expect("portGot");
    assert_eq!(got, 0, "a port offered with a made-up token was answered");

    // The worker stops (as chrome://serviceworker-internals does): the content script
    // reconnects, gets a new offer, and the channel comes back.
    cdp.stop_service_worker(&format!("chrome-extension://{EXTENSION_ID}/"))
        .await
        .expect("stop the service worker");
    let deadline = Instant::now() + TAB_TIMEOUT;
    loop {
        let (status, resp) = nspd
            .act(&json!({"pid": plain_pid, "action": "read_text", "parameters": {"selector": "#count"}}))
            .await
            .expect("read_text");
        if status == 200 && resp["raw_return"] == "forty-four" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no read after the worker restarted: {status} {resp}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    wait_direct(&browser, &plain).await;
    read_after_change(&nspd, &mut cdp, &plain, plain_pid, "after the restart").await;
}
