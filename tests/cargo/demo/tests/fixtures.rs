//! An integration test that loads fixture files as tests usually do: by a path
//! relative to the package's root (cargo's current directory for tests), and by
//! one built from `CARGO_MANIFEST_DIR`. `cargo-vliw test` maps the package's
//! directory for the simulated test binary (dist/vliw-test-run), so these pass
//! as on the host; nothing is written.

use std::fs;
use std::path::Path;

#[test]
fn reads_a_fixture_by_a_relative_path() {
    let text = fs::read_to_string("tests/fixtures/greeting.txt").unwrap();
    assert_eq!(text.lines().next(), Some("hello from a fixture"));
    assert_eq!(demo::longest_words(&text)[0], "fixture");
}

#[test]
fn reads_fixtures_under_the_manifest_dir() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/words");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a.txt", "b.txt"]);
    let words: Vec<String> = names
        .iter()
        .flat_map(|n| {
            let text = fs::read_to_string(dir.join(n)).unwrap();
            text.split_whitespace().map(str::to_string).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(words, ["alpha", "beta", "gamma"]);
    assert_eq!(fs::metadata(dir.join("b.txt")).unwrap().len(), 6);
}

#[test]
fn a_missing_fixture_is_not_found() {
    let e = fs::read("tests/fixtures/missing.txt").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
}
