//! `cargo xtask dist`: the probe for wasm32 (profile `probe`: `opt-level = 2`), wasm-bindgen
//! glue (`--target web`), and the loadable extension in `target/dist/extension` plus a
//! zip beside it.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::tools::{self, Tools};

/// Where the built extension lands: `target/dist/extension`, or `$NSP_DIST_DIR` (so
/// several checkouts of work in progress can each build their own copy from one tree
/// without removing a folder another's browser is loading).
pub fn extension_dir(root: &Path) -> PathBuf {
    match std::env::var_os("NSP_DIST_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => root.join("target/dist/extension"),
    }
}

pub fn run(root: &Path, tools: &Tools) -> Result<PathBuf> {
    crate::stage("building the probe (wasm32, profile `probe`: opt-level 2)");
    tools::run(Command::new(tools::cargo()).current_dir(root).args([
        "build",
        "--package",
        "nsp-probe",
        "--lib",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        "probe",
    ]))?;
    let wasm = root.join("target/wasm32-unknown-unknown/probe/nsp_probe.wasm");

    crate::stage("assembling target/dist/extension");
    let out = extension_dir(root);
    if out.exists() {
        fs::remove_dir_all(&out).with_context(|| format!("removing {}", out.display()))?;
    }
    copy_dir(&root.join("extension"), &out)?;
    // The constants the service worker and the popup share with nspd, from the Rust
    // side: one copy of each (see protocol/src/contract.rs).
    fs::write(
        out.join(nsp_protocol::contract::FILE_NAME),
        nsp_protocol::contract::extension_module(),
    )?;
    let probe_dir = out.join("probe");
    tools::run(
        Command::new(&tools.wasm_bindgen)
            .arg("--target")
            .arg("web")
            // The name section alone is ~115 KiB raw; browsers do not need it.
            .arg("--remove-name-section")
            .arg("--remove-producers-section")
            // `__wbg_reset_state()`: the worker replaces a probe instance that trapped
            // (worker/probe.js), instead of serving every tab from a broken one.
            .arg("--experimental-reset-state-function")
            .arg("--out-name")
            .arg("nsp_probe")
            .arg("--out-dir")
            .arg(&probe_dir)
            .arg(&wasm),
    )?;
    // The declarations are for `tsc --checkJs` (the probe module's real exports), not
    // for the browser: they move next to the extension, under target/dist/types.
    let types = root.join("target/dist/types/probe");
    fs::create_dir_all(&types).with_context(|| format!("creating {}", types.display()))?;
    // And the generated constants, so `import … from "./contract.js"` resolves there too.
    fs::write(
        root.join("target/dist/types")
            .join(nsp_protocol::contract::FILE_NAME),
        nsp_protocol::contract::extension_module(),
    )?;
    for name in ["nsp_probe.d.ts", "nsp_probe_bg.wasm.d.ts"] {
        let from = probe_dir.join(name);
        if from.exists() {
            fs::rename(&from, types.join(name))
                .with_context(|| format!("moving {}", from.display()))?;
        }
    }
    let bg = probe_dir.join("nsp_probe_bg.wasm");
    if let Some(wasm_opt) = &tools.wasm_opt {
        let optimised = probe_dir.join("nsp_probe_bg.opt.wasm");
        tools::run(
            Command::new(wasm_opt)
                .arg("-Oz")
                .arg("--enable-bulk-memory")
                .arg("--enable-nontrapping-float-to-int")
                .arg("--enable-sign-ext")
                .arg("--enable-mutable-globals")
                .arg("--enable-reference-types")
                .arg("--enable-multivalue")
                .arg(&bg)
                .arg("-o")
                .arg(&optimised),
        )?;
        fs::rename(&optimised, &bg)?;
    }

    let zip_path = out.with_file_name("nsp-extension.zip");
    write_zip(&out, &zip_path)?;

    let raw = fs::metadata(&bg)?.len();
    let gz = gzip_len(&bg)?;
    let zip_len = fs::metadata(&zip_path)?.len();
    println!(
        "  probe wasm: {} raw, {} gzipped ({gz} bytes of the bench's budget of {})",
        kib(raw),
        kib(gz),
        crate::bench_probe::WASM_GZ_TARGET
    );
    println!("  extension:  {}", out.display());
    println!("  zip:        {} ({})", zip_path.display(), kib(zip_len));
    Ok(out)
}

fn kib(n: u64) -> String {
    format!("{:.1} KiB", n as f64 / 1024.0)
}

fn gzip_len(path: &Path) -> Result<u64> {
    let mut data = Vec::new();
    fs::File::open(path)?.read_to_end(&mut data)?;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&data)?;
    Ok(enc.finish()?.len() as u64)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

fn write_zip(dir: &Path, zip_path: &Path) -> Result<()> {
    let file =
        fs::File::create(zip_path).with_context(|| format!("creating {}", zip_path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    for path in files {
        let name = path.strip_prefix(dir)?.to_string_lossy().replace('\\', "/");
        zip.start_file(name, options)?;
        zip.write_all(&fs::read(&path)?)?;
    }
    zip.finish()?;
    Ok(())
}
