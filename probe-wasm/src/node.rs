//! Test helper: runs a JavaScript program in node, for the tests that check a rule the
//! extension's scripts share with the probe against the Rust side.

/// Runs `program` with `node -e` and returns what it wrote to stdout, as JSON.
pub fn run_json(program: &str) -> serde_json::Value {
    let out = std::process::Command::new("node")
        .args(["-e", program])
        .output()
        .expect("node (cargo xtask test installs Node.js)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from node")
}

/// The path of one of the extension's scripts.
pub fn extension_script(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../extension")
        .join(name)
}
