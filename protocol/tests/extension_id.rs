//! The pinned extension id must be the one Chrome derives from the manifest's key.

use base64::Engine;
use sha2::{Digest, Sha256};

#[test]
fn extension_id_matches_the_manifest_key() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../extension/manifest.json");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("manifest")).expect("json");
    let key = manifest["key"].as_str().expect("manifest has a key");
    let der = base64::engine::general_purpose::STANDARD
        .decode(key)
        .expect("base64 key");
    let digest = Sha256::digest(&der);
    // Chrome: first 16 bytes of SHA-256 of the public key, each hex digit mapped to a..p.
    let id: String = digest[..16]
        .iter()
        .flat_map(|b| [b >> 4, b & 0xf])
        .map(|nibble| char::from(b'a' + nibble))
        .collect();
    assert_eq!(id, nsp_protocol::EXTENSION_ID);
}
