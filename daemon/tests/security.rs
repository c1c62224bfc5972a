//! The localhost defences of docs/threat-model.md, each proven by sending the
//! attack: the Host allow-list (DNS rebinding), the pinned extension Origin on the
//! extension channel (cross-site WebSocket hijacking), foreign Origins on the agent
//! API, and loopback-only binding.

mod support;

use std::net::IpAddr;

use nsp_daemon::core::config::Settings;
use nsp_daemon::server::{Server, StartError};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// Sends raw bytes and returns the status code of the answer.
async fn raw_status(d: &Daemon, request: String) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(d.addr)
        .await
        .expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut buf),
    )
    .await;
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

#[tokio::test]
async fn foreign_hosts_are_refused_before_any_handler() {
    let d = Daemon::start().await;
    let port = d.addr.port();
    let ok = raw_status(
        &d,
        format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(ok.0, 200, "{}", ok.1);
    for host in [
        "evil.example".to_owned(),
        format!(":{port}"),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
    ] {
        let (status, text) = raw_status(
            &d,
            format!("GET /health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert_eq!(status, 403, "Host {host}: {text}");
        assert!(text.contains("\"forbidden\""), "{text}");
    }
    // Empty Host.
    let (status, _) = raw_status(
        &d,
        "GET /health HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n".into(),
    )
    .await;
    assert!(status == 403 || status == 400, "{status}");
    // Absolute-form request line naming a foreign host, with a good Host header.
    let (status, text) = raw_status(&d, format!("GET http://evil.example/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")).await;
    assert_eq!(status, 403, "{text}");
    // The same defence covers the agent API and the extension channel.
    let (status, _) = raw_status(&d, format!("GET /substrate/v1/apps HTTP/1.1\r\nHost: evil.example:{port}\r\nX-Substrate-Key: {}\r\nConnection: close\r\n\r\n", d.key)).await;
    assert_eq!(status, 403);
}

async fn extension_handshake(d: &Daemon, origin: Option<&str>) -> u16 {
    let url = format!("ws://{}/substrate/v1/extension", d.addr);
    let mut request = url.into_client_request().expect("request");
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("origin", origin.parse().expect("header"));
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok(_) => 101,
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
        Err(e) => panic!("unexpected handshake error: {e}"),
    }
}

#[tokio::test]
async fn only_the_pinned_extension_may_open_the_extension_channel() {
    let d = Daemon::start().await;
    let ours = format!("chrome-extension://{}", nsp_protocol::EXTENSION_ID);
    assert_eq!(extension_handshake(&d, Some(&ours)).await, 101);
    for origin in [
        Some("https://evil.example"),
        Some("null"),
        Some("chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        None,
    ] {
        assert_eq!(extension_handshake(&d, origin).await, 403, "{origin:?}");
    }
}

#[tokio::test]
async fn web_pages_cannot_call_the_agent_api() {
    let (d, ext, pid) = daemon_with_tab(fast_config(), 0.99).await;
    let port = d.addr.port();
    // A "simple" cross-site POST (text/plain, no preflight) without the key.
    let body =
        format!("{{\"pid\": {pid}, \"action\": \"search\", \"parameters\": {{\"q\": \"x\"}}}}");
    let (status, text) = raw_status(
        &d,
        format!(
            "POST /substrate/v1/action HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await;
    assert_eq!(status, 403, "{text}");
    assert!(
        !text.to_ascii_lowercase().contains("access-control-allow"),
        "{text}"
    );
    // Even with the key, a foreign Origin is refused.
    let (status, _) = raw_status(
        &d,
        format!(
            "POST /substrate/v1/action HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\nX-Substrate-Key: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            d.key,
            body.len()
        ),
    )
    .await;
    assert_eq!(status, 403);
    // A preflight gets no CORS grant.
    let (status, text) = raw_status(
        &d,
        format!("OPTIONS /substrate/v1/action HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 403, "{text}");
    assert!(
        !text.to_ascii_lowercase().contains("access-control-allow"),
        "{text}"
    );
    assert!(ext.dispatched().is_empty(), "nothing reached the page");
}

#[tokio::test]
async fn nspd_binds_loopback_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut settings = Settings::new(dir.path().to_path_buf());
    settings.port = 0;
    settings.host = IpAddr::from([0, 0, 0, 0]);
    match Server::bind(settings.clone()).await {
        Err(StartError::NotLoopback(_)) => {}
        other => panic!("must refuse 0.0.0.0: {other:?}"),
    }
    // The listening socket itself is bound to 127.0.0.1, as the kernel reports it
    // (/proc/net/tcp), so no other address of the machine reaches it. Checked without
    // sending traffic to any non-loopback address.
    let d = Daemon::start().await;
    assert!(d.addr.ip().is_loopback());
    let table = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
    let port_hex = format!("{:04X}", d.addr.port());
    let listening: Vec<&str> = table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            // st 0A = LISTEN
            (cols.get(3) == Some(&"0A") && cols.get(1)?.ends_with(&format!(":{port_hex}")))
                .then(|| cols[1])
        })
        .collect();
    assert_eq!(
        listening,
        vec![format!("0100007F:{port_hex}")],
        "nspd must listen on 127.0.0.1 only"
    );
}
