//! What the tests share: the canonical texts, differential runs.

pub mod changes;
pub mod differential;
pub mod passes;
pub mod random_cfg;
pub mod random_memory;
pub mod random_rvsdg;

#[allow(dead_code)] // not every test file reads them
/// The canonical texts of `tests/rvsdg/text` (name, text), without their leading
/// comment lines.
pub fn texts() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/rvsdg/text");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rvsdg"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 3, "texts in {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let body: Vec<&str> = text.lines().skip_while(|l| l.starts_with(';')).collect();
            let body = body.join("\n").trim_start().to_string() + "\n";
            (p.file_name().unwrap().to_string_lossy().into_owned(), body)
        })
        .collect()
}
