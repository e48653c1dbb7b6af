//! Issue 48: `export --all | --since | SESSION… -o DIR`, an archive: one page per session and
//! an index, relative links only, nothing written outside DIR, `--redact` on every page; DIR
//! that exists, is a file or a symlink; two sessions that would share a page name; hostile
//! names and titles.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::{example_env, examples_agent_dir, run, run_with};
use crate::export_fixture::hostile;

fn files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect()
}

/// Every `href` of a page.
fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|r| r.split('"').next().unwrap().to_owned())
        .collect()
}

#[test]
fn all_sessions_make_pages_and_an_index_that_links_only_to_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("archive");
    let r = run(&["-q", "export", "--all", "-o", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "", "stdout is data: nothing to say");
    let names = files(&dir);
    assert_eq!(names.len(), 15, "14 pages and the index: {names:?}");
    assert!(names.contains("index.html") && names.contains("2025-05-13-0196c9f4.html"));
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(index.starts_with("<!DOCTYPE html>"));
    let links = hrefs(&index);
    assert_eq!(links.len(), 14, "{links:?}");
    for l in &links {
        assert!(names.contains(l), "{l} is a page beside the index");
    }
    // Newest first without JavaScript; the columns the issue names.
    assert!(index.find("2025-05-21-0196f4e5.html") < index.find("2025-01-08-01944689.html"));
    for th in ["Date", "Project", "Title", "Messages", "Cost", "Models"] {
        assert!(
            index.contains(&format!("<th>{th}</th>")) || index.contains(&format!(">{th}</th>")),
            "{th}"
        );
    }
    assert!(index.contains("/home/dev/webshop") && index.contains("anthropic/claude-opus-4-5"));
    // Each page is the session's export, its links fragments or http(s) only.
    let page = std::fs::read_to_string(dir.join("2025-05-13-0196c9f4.html")).unwrap();
    assert!(page.contains("keep prices in integer cents"));
    for l in hrefs(&page) {
        assert!(l.starts_with('#') || l.starts_with("http"), "{l}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode(&dir),
            0o700,
            "the folder of pages as they are is private"
        );
        assert_eq!(mode(&dir.join("index.html")), 0o600);
    }

    // Markdown the same, into `out/`: a folder by its trailing slash.
    let md = tmp.path().join("md");
    let r = run(&[
        "-q",
        "export",
        "--all",
        "-f",
        "md",
        "-o",
        &format!("{}/", md.display()),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let index = std::fs::read_to_string(md.join("index.md")).unwrap();
    assert!(index.contains("| Date | Project | Title | Messages | Cost | Models |"));
    assert!(
        index.contains("](2025-05-13-0196c9f4.md) | 9 | $0.04 |"),
        "{index}"
    );
    assert_eq!(files(&md).len(), 15);

    // --since: this project's sessions modified since then.
    let since = tmp.path().join("since");
    let r = run(&[
        "-q",
        "export",
        "--since",
        "2025-05-15",
        "-o",
        since.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names = files(&since);
    assert!(names.contains("2025-05-16-0196d88e.html"), "{names:?}");
    assert!(
        !names.contains("2025-05-13-0196c9f4.html"),
        "older: {names:?}"
    );
    assert!(
        !names.iter().any(|n| n.contains("0196ec7d")),
        "another project: {names:?}"
    );
}

#[test]
fn redact_applies_to_every_page_and_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shared");
    let r = run(&[
        "-q",
        "export",
        "--all",
        "--redact",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let key = "sk_test_51Hc9Xw2eZvKYlo2C0f3a9";
    let mut seen = 0;
    for name in files(&dir) {
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        assert!(!text.contains(key), "{name} holds the key");
        seen += usize::from(text.contains("[REDACTED"));
    }
    assert!(
        seen >= 2,
        "the session's page and the index title say it was redacted"
    );
}

#[test]
fn the_folder_must_be_new_or_empty_never_a_file_or_a_symlink() {
    let tmp = tempfile::tempdir().unwrap();
    let export = |dir: &Path, more: &[&str]| {
        let mut args = vec![
            "-q",
            "export",
            "0196c9f4",
            "0196cdea",
            "-o",
            dir.to_str().unwrap(),
        ];
        args.extend(more);
        run(&args)
    };
    let full = tmp.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("notes.txt"), "mine").unwrap();
    let r = export(&full, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("it is not empty (--force"),
        "{}",
        r.stderr
    );
    assert_eq!(files(&full).len(), 1, "nothing written");
    let r = export(&full, &["--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        files(&full).len(),
        4,
        "two pages, the index, and the file that was there"
    );
    assert_eq!(
        std::fs::read_to_string(full.join("notes.txt")).unwrap(),
        "mine"
    );

    let file = tmp.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let r = export(&file, &["--force"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("it is not a folder"), "{}", r.stderr);

    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let r = export(&link, &["--force"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("it is a symlink"), "{}", r.stderr);
    assert!(files(&elsewhere).is_empty());

    // A page's name taken by a symlink: that page is not written through it (left out, said,
    // exit 1), the rest are.
    let trap = tmp.path().join("trap");
    std::fs::create_dir(&trap).unwrap();
    let target = tmp.path().join("target.html");
    std::os::unix::fs::symlink(&target, trap.join("2025-05-13-0196c9f4.html")).unwrap();
    let r = export(&trap, &["--force"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("not writing a page through a symlink"),
        "{}",
        r.stderr
    );
    assert!(!target.exists(), "nothing outside the folder");
    assert!(trap.join("2025-05-14-0196cdea.html").is_file());
    let index = std::fs::read_to_string(trap.join("index.html")).unwrap();
    assert_eq!(hrefs(&index), ["2025-05-14-0196cdea.html"]);

    // Inside the sessions folder: refused.
    let inside = examples_agent_dir().join("sessions").join("archive-test");
    let r = export(&inside, &[]);
    assert_eq!(r.code, 1);
    assert!(!inside.exists());

    // Usage: an archive is md or html into a folder.
    let r = run(&["export", "--all"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = run(&[
        "export",
        "--all",
        "-f",
        "jsonl",
        "-o",
        tmp.path().join("j").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = run(&[
        "export",
        "0196c9f4",
        "--force",
        "-o",
        tmp.path().join("f.md").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn same_page_names_and_hostile_titles() {
    let tmp = tempfile::tempdir().unwrap();
    // The same session twice under two names, and a hostile one twice: four pages, none lost.
    let example = examples_agent_dir()
        .join("sessions/--home-dev-webshop--")
        .read_dir()
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("0196c9f4"))
        .unwrap();
    let copy = tmp.path().join("copy.jsonl");
    std::fs::copy(&example, &copy).unwrap();
    let h = hostile();
    // Its header's id and its name are hostile too.
    let evil = h.jsonl.replacen(
        "\"id\":\"0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee\"",
        "\"id\":\"../<b>\u{e9}/../x\"",
        1,
    );
    assert_ne!(evil, h.jsonl);
    let a = tmp.path().join("a.jsonl");
    let b = tmp.path().join("B.jsonl");
    std::fs::write(&a, &evil).unwrap();
    std::fs::write(&b, &evil).unwrap();
    let dir = tmp.path().join("out");
    let r = run_with(
        example_env(),
        &[
            "-q",
            "export",
            example.to_str().unwrap(),
            copy.to_str().unwrap(),
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "-o",
            dir.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names = files(&dir);
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(
        names.contains("2025-05-13-0196c9f4.html") && names.contains("2025-05-13-0196c9f4-2.html")
    );
    for n in &names {
        assert!(
            n.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c)),
            "{n}"
        );
    }
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    // One script, the index's own; the hostile title is text.
    assert_eq!(index.matches("<script").count(), 1, "{index}");
    assert!(index.contains("&lt;/title&gt;&lt;script&gt;"), "{index}");
    for l in hrefs(&index) {
        assert!(names.contains(&l), "{l}");
    }
}
