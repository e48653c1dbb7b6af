//! The HTML export in a real browser: headless Chromium, driven over its DevTools protocol with
//! the network cut, loads the hostile session's page and an example session's, with JavaScript
//! on and off. No request may leave the page, no console error or CSP violation may be logged,
//! every text must be in the DOM, nothing from the session may have become an element or run
//! (the marker global its scripts would set stays undefined), and a screenshot is taken. Every
//! bundled example's page and a session with aligned tables, images and code load with no
//! console error and no CSP violation (the Audits domain's issues are read too: issue 42).
//!
//! Skipped, with a note, when no Chromium is installed (`.ci/run` installs Debian's);
//! `PISESS_CHROMIUM` names another binary.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use crate::common::{example_env, run, run_with};
use crate::export_fixture::hostile;

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PISESS_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|p| p.is_file())
}

/// axe-core's script: `$PISESS_AXE`, else where `.ci/run` installs it (`npm install --prefix
/// target/npm axe-core`); `None` (a skip, said, and a failure under CI) without it.
fn axe_source() -> Option<String> {
    let path = std::env::var_os("PISESS_AXE").map_or_else(
        || crate::common::repo().join("target/npm/node_modules/axe-core/axe.min.js"),
        PathBuf::from,
    );
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(_) => {
            crate::common::missing_tool(&format!(
                "axe-core ({}: the HTML export's accessibility check)",
                path.display()
            ));
            None
        }
    }
}

struct Browser {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Events read while waiting for replies, with their session.
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    fn launch(bin: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-default-apps",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.split("DevTools listening on ").nth(1) {
                    let _ = tx.send(url.trim().to_owned());
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("chromium's DevTools URL");
        let (ws, _) = tungstenite::connect(url.as_str()).expect("DevTools websocket");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        }
        Browser {
            child,
            ws,
            next_id: 0,
            events: Vec::new(),
            _profile: profile,
        }
    }

    /// Sends a command (to a page's session when given) and waits for its reply.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(msg.to_string())).unwrap();
        loop {
            let v = self.read();
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    fn read(&mut self) -> Value {
        loop {
            match self.ws.read().expect("DevTools message") {
                Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
                Message::Close(_) => panic!("DevTools closed"),
                _ => {}
            }
        }
    }

    /// Waits for an event of a session.
    fn wait_for(&mut self, session: &str, method: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let seen = |e: &Value| e["method"] == method && e["sessionId"] == session;
        while !self.events.iter().any(seen) {
            assert!(Instant::now() < deadline, "no {method}");
            let v = self.read();
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    /// axe-core's serious and critical violations of the page, each as `rule: node: why`
    /// (axe's source is put in the page through DevTools, which the page's CSP does not
    /// govern; the page itself still allows no script but its own).
    fn axe(&mut self, session: &str, source: &str) -> Vec<String> {
        self.eval(session, &format!("{source};0"));
        let r = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({
                "expression": "axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').flatMap(v => v.nodes.slice(0, 3).map(n => v.id + ': ' + n.target.join(' ') + ': ' + n.failureSummary))))",
                "awaitPromise": true,
                "returnByValue": true
            }),
        );
        assert!(r.get("exceptionDetails").is_none(), "axe: {r}");
        serde_json::from_str(r["result"]["value"].as_str().unwrap()).unwrap()
    }

    fn eval(&mut self, session: &str, expression: &str) -> Value {
        let r = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }
}

/// What the page's DOM holds, read by the test (not by the page).
const PROBE: &str = r##"JSON.stringify({
  pwned: typeof window.pwned,
  text: document.body.textContent,
  foreign: document.querySelectorAll('iframe,frame,object,embed,base,svg,link,meta[http-equiv=refresh],style:not(head>style)').length,
  scripts: document.scripts.length,
  images: Array.from(document.images).map(i => i.getAttribute('src').slice(0, 11)),
  handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => /^on/i.test(a.name))).length,
  styled: document.querySelectorAll('[style]').length,
  tables: document.querySelectorAll('main table').length,
  scriptLinks: Array.from(document.querySelectorAll('a[href]')).filter(a => !/^(https?:|mailto:|#)/i.test(a.getAttribute('href'))).map(a => a.getAttribute('href')),
  bar: !!document.getElementById('bar'),
  articles: document.querySelectorAll('main>article').length,
  copyLinks: document.querySelectorAll('main>article>h3>a[href^="#m-"]').length,
  bg: getComputedStyle(document.body).backgroundColor
})"##;

/// A new tab with the network cut, a 1000×900 window and the colour scheme asked for,
/// navigated to `url` and loaded: its target and session ids.
fn open(b: &mut Browser, url: &str, javascript: bool, dark: bool) -> (Value, String) {
    let target =
        b.call(None, "Target.createTarget", json!({"url": "about:blank"}))["targetId"].clone();
    let session = b.call(
        None,
        "Target.attachToTarget",
        json!({"targetId": target, "flatten": true}),
    )["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let s = Some(session.as_str());
    for domain in [
        "Page.enable",
        "Runtime.enable",
        "Log.enable",
        "Network.enable",
        "Audits.enable",
    ] {
        b.call(s, domain, json!({}));
    }
    // The network cut: offline, and every request recorded.
    b.call(
        s,
        "Network.emulateNetworkConditions",
        json!({"offline": true, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0}),
    );
    b.call(
        s,
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1000, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
    );
    b.call(s, "Emulation.setEmulatedMedia", json!({"features": [{"name": "prefers-color-scheme", "value": if dark { "dark" } else { "light" }}]}));
    if !javascript {
        b.call(
            s,
            "Emulation.setScriptExecutionDisabled",
            json!({"value": true}),
        );
    }
    b.events.clear();
    b.call(s, "Page.navigate", json!({"url": url}));
    b.wait_for(&session, "Page.loadEventFired");
    (target, session)
}

/// The console errors, exceptions and CSP violations a tab's session reported, and the URLs
/// it requested.
fn reported(b: &Browser, session: &str) -> (Vec<String>, Vec<String>) {
    let mut requests = Vec::new();
    let mut errors = Vec::new();
    for e in b.events.iter().filter(|e| e["sessionId"] == session) {
        let p = &e["params"];
        match e["method"].as_str().unwrap_or("") {
            "Network.requestWillBeSent" => {
                requests.push(p["request"]["url"].as_str().unwrap_or("").to_owned())
            }
            "Runtime.exceptionThrown" => errors.push(p["exceptionDetails"].to_string()),
            "Runtime.consoleAPICalled" if p["type"] == "error" || p["type"] == "warning" => {
                errors.push(p["args"].to_string())
            }
            "Log.entryAdded"
                if p["entry"]["level"] == "error" || p["entry"]["level"] == "warning" =>
            {
                errors.push(p["entry"].to_string())
            }
            // A CSP violation is an issue whether or not the console shows it.
            "Audits.issueAdded"
                if p["issue"]["code"]
                    .as_str()
                    .is_some_and(|c| c.contains("ContentSecurityPolicy")) =>
            {
                errors.push(p["issue"].to_string())
            }
            _ => {}
        }
    }
    (requests, errors)
}

struct Loaded {
    dom: Value,
    requests: Vec<String>,
    errors: Vec<String>,
    png: Vec<u8>,
}

fn load(
    b: &mut Browser,
    file: &Path,
    javascript: bool,
    dark: bool,
    search: Option<&str>,
    axe: Option<&str>,
) -> Loaded {
    let url = format!("file://{}", file.display());
    let (target, session) = open(b, &url, javascript, dark);
    let s = Some(session.as_str());
    // Anything late (a timer, an image) has a moment to show itself.
    std::thread::sleep(Duration::from_millis(300));
    let dom: Value = serde_json::from_str(b.eval(&session, PROBE).as_str().unwrap()).unwrap();
    if let (true, Some(search)) = (javascript, search) {
        // Search hides what does not match.
        let count = |b: &mut Browser, q: &str| {
            let js = format!("(() => {{ const q = document.querySelector('#bar input'); q.value = {}; q.dispatchEvent(new Event('input')); return document.querySelectorAll('main>article:not(.x)').length }})()", json!(q));
            b.eval(&session, &js).as_u64().unwrap()
        };
        let all = count(b, "");
        let hits = count(b, search);
        assert!(
            hits >= 1 && hits < all,
            "search for {search:?} shows {hits} of {all}"
        );
        count(b, "");
    }
    let shot = b.call(s, "Page.captureScreenshot", json!({"format": "png"}));
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().unwrap())
        .unwrap();
    let (requests, errors) = reported(b, &session);
    // After the events are read: axe's own work is not the page's.
    if let Some(source) = axe {
        // axe's timers need scripts on; the page's own script, which did not run at load,
        // does not run now.
        if !javascript {
            b.call(
                s,
                "Emulation.setScriptExecutionDisabled",
                json!({"value": false}),
            );
            assert_eq!(
                b.eval(&session, "!!document.getElementById('bar')"),
                json!(false)
            );
        }
        let violations = b.axe(&session, source);
        assert!(
            violations.is_empty(),
            "{} (JavaScript {javascript}, dark {dark}): axe-core's serious or critical violations: {violations:#?}",
            file.display()
        );
    }
    b.call(None, "Target.closeTarget", json!({"targetId": target}));
    Loaded {
        dom,
        requests,
        errors,
        png,
    }
}

/// A PNG's width and height, from its IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

#[test]
fn html_export_in_a_headless_browser_with_the_network_cut() {
    let Some(bin) = chromium() else {
        crate::common::missing_tool("chromium (the HTML export's browser test)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let h = hostile();
    let r = run_with(
        example_env(),
        &["-q", "export", "-", "-f", "html", "--tools", "full"],
        h.jsonl.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hostile_page = dir.path().join("hostile.html");
    std::fs::write(&hostile_page, &r.stdout).unwrap();
    let example_page = dir.path().join("example.html");
    let r = run(&[
        "export",
        "0196c9f4",
        "-f",
        "html",
        "-o",
        example_page.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);

    let rich_page = dir.path().join("rich.html");
    export_rich(&rich_page);
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let axe = axe_source();
    let mut b = Browser::launch(&bin);
    for (page, texts) in [
        (&hostile_page, h.texts.clone()),
        (&rich_page, RICH_TEXTS.to_vec()),
        (
            &example_page,
            vec!["keep prices in integer cents", "cartTotal"],
        ),
    ] {
        let page_url = format!("file://{}", page.display());
        for (javascript, dark) in [(true, false), (false, false), (true, true)] {
            let what = format!(
                "{} (JavaScript {}, {})",
                page.display(),
                if javascript { "on" } else { "off" },
                if dark { "dark" } else { "light" }
            );
            let l = load(
                &mut b,
                page,
                javascript,
                dark,
                texts.last().copied(),
                axe.as_deref(),
            );
            let foreign: Vec<&String> = l
                .requests
                .iter()
                .filter(|u| **u != page_url && !u.starts_with("data:"))
                .collect();
            assert!(
                foreign.is_empty(),
                "{what}: requests left the page: {foreign:?}"
            );
            assert!(
                l.requests.contains(&page_url),
                "{what}: the page itself was seen: {:?}",
                l.requests
            );
            assert!(
                l.errors.is_empty(),
                "{what}: console errors: {:#?}",
                l.errors
            );
            let d = &l.dom;
            assert_eq!(
                d["pwned"], "undefined",
                "{what}: a script from the session ran"
            );
            assert_eq!(d["foreign"], 0, "{what}: an element from the session");
            assert_eq!(d["handlers"], 0, "{what}: an event handler attribute");
            assert_eq!(
                d["styled"], 0,
                "{what}: a style attribute, which the CSP refuses"
            );
            assert_eq!(d["scripts"], 1, "{what}: only the page's own script");
            assert_eq!(
                d["scriptLinks"],
                json!([]),
                "{what}: links that are not http(s), mailto or fragments"
            );
            assert!(
                d["images"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|s| s == "data:image/"),
                "{what}: {}",
                d["images"]
            );
            assert_eq!(
                d["bar"], javascript,
                "{what}: the search bar is the script's (so CSP let it run)"
            );
            let articles = d["articles"].as_u64().unwrap();
            assert!(articles >= 2, "{what}");
            let links = if javascript { articles } else { 0 };
            assert_eq!(
                d["copyLinks"], links,
                "{what}: the script adds each message's link"
            );
            let text = d["text"].as_str().unwrap();
            for t in &texts {
                assert!(text.contains(t), "{what}: {t:?} not in the page's text");
            }
            let dark_bg = d["bg"] == "rgb(13, 17, 23)";
            assert_eq!(
                dark_bg, dark,
                "{what}: prefers-color-scheme decides the colours ({})",
                d["bg"]
            );
            let (w, hgt) = png_size(&l.png);
            assert!(w == 1000 && hgt == 900, "{what}: screenshot {w}x{hgt}");
            let name = format!(
                "{}-{}-{}.png",
                page.file_stem().unwrap().to_string_lossy(),
                if javascript { "js" } else { "nojs" },
                if dark { "dark" } else { "light" }
            );
            std::fs::write(shots.join(&name), &l.png).unwrap();
            eprintln!(
                "export_browser: {what}: ok, screenshot {name} {w}x{hgt} px, {} bytes",
                l.png.len()
            );
        }
    }
}

/// Texts of [`export_rich`]'s session a reader must find; the last is searched for.
const RICH_TEXTS: &[&str] = &[
    "left cell",
    "centred",
    "fn main()",
    "deep quote",
    "rich probe",
];

/// A session with what real sessions hold and the hostile one does not: tables with aligned
/// columns (pulldown-cmark wrote them as `style` attributes, refused by the page's CSP on
/// 63e6fc9), code, images in a message and a tool result, nested quotes, task lists.
fn export_rich(page: &Path) {
    use crate::export_fixture::PNG_1X1;
    let table = "| name | centred | right |\n|:-----|:------:|------:|\n| left cell | b | 3 |\n| x | y | 42 |";
    let text = format!(
        "{table}\n\n```rust\nfn main() {{}}\n```\n\n> > > deep quote\n\n- [x] done\n- [ ] open\n\n~~gone~~ rich probe"
    );
    let lines = [
        json!({"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000aa","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}),
        json!({"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",
               "message":{"role":"user","content":[{"type":"text","text":"a table and a picture"},
               {"type":"image","mimeType":"image/png","data":PNG_1X1}],"timestamp":1_767_225_601_000_i64}}),
        json!({"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z",
               "message":{"role":"assistant","content":[{"type":"thinking","thinking":"| a |\n|--:|\n| 1 |"},
               {"type":"text","text":text},
               {"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x.png"}}],
               "provider":"p","model":"m","stopReason":"toolUse","timestamp":1_767_225_602_000_i64}}),
        json!({"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z",
               "message":{"role":"toolResult","toolCallId":"c1","toolName":"read",
               "content":[{"type":"text","text":"the image"},{"type":"image","mimeType":"image/png","data":PNG_1X1}],
               "isError":false,"timestamp":1_767_225_603_000_i64}}),
        json!({"type":"message","id":"a2","parentId":"r1","timestamp":"2026-01-01T00:00:04.000Z",
               "message":{"role":"assistant","content":[{"type":"text","text":"| a | b |\n|--:|:-:|\n| 1 | 2 |"}],
               "provider":"p","model":"m","stopReason":"stop","timestamp":1_767_225_604_000_i64}}),
    ];
    let jsonl: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let r = run_with(
        example_env(),
        &["-q", "export", "-", "-f", "html", "--tools", "full"],
        jsonl.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("<th class=al>"),
        "the aligned table is there"
    );
    std::fs::write(page, &r.stdout).unwrap();
}

/// Issue 42: every bundled example session's page, and the rich one, load with no console
/// error, no CSP violation (reported by the Audits domain too) and no `style` attribute, with
/// JavaScript on and off; so do those of `PISESS_BROWSER_SESSIONS` when it names a folder.
#[test]
fn every_example_exports_a_page_without_console_errors() {
    let Some(bin) = chromium() else {
        eprintln!(
            "export_browser: SKIPPED (no chromium on PATH; .ci/run installs Debian's chromium)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut pages = Vec::new();
    let rich = dir.path().join("rich.html");
    export_rich(&rich);
    pages.push(rich);
    let sessions = crate::common::examples_agent_dir().join("sessions");
    let mut files = Vec::new();
    for project in std::fs::read_dir(&sessions).unwrap() {
        for f in std::fs::read_dir(project.unwrap().path()).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "jsonl") {
                files.push(f);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "the examples: {files:?}");
    // Real sessions, which the repository does not hold: `PISESS_BROWSER_SESSIONS=DIR` adds
    // every `.jsonl` file of DIR.
    if let Some(extra) = std::env::var_os("PISESS_BROWSER_SESSIONS") {
        let mut more: Vec<PathBuf> = std::fs::read_dir(&extra)
            .unwrap()
            .map(|f| f.unwrap().path())
            .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        more.sort();
        eprintln!(
            "export_browser: {} more sessions from {extra:?}",
            more.len()
        );
        files.extend(more);
    }
    let mut texts = vec![RICH_TEXTS
        .iter()
        .map(|t| (*t).to_owned())
        .collect::<Vec<_>>()];
    for (k, f) in files.iter().enumerate() {
        let page = dir.path().join(format!("example-{k}.html"));
        let r = run(&[
            "-q",
            "export",
            f.to_str().unwrap(),
            "-f",
            "html",
            "--tools",
            "full",
            "-o",
            page.to_str().unwrap(),
        ]);
        assert_eq!(r.code, 0, "{}: {}", f.display(), r.stderr);
        pages.push(page);
        texts.push(branch_texts(f));
    }
    let axe = axe_source();
    let mut b = Browser::launch(&bin);
    for (page, texts) in pages.iter().zip(&texts) {
        let page_url = format!("file://{}", page.display());
        for javascript in [true, false] {
            let what = format!("{} (JavaScript {javascript})", page.display());
            let l = load(&mut b, page, javascript, false, None, axe.as_deref());
            assert!(
                l.errors.is_empty(),
                "{what}: console errors or CSP violations: {:#?}",
                l.errors
            );
            assert!(
                l.requests
                    .iter()
                    .all(|u| *u == page_url || u.starts_with("data:")),
                "{what}: {:?}",
                l.requests
            );
            assert_eq!(l.dom["styled"], 0, "{what}: a style attribute");
            assert_eq!(l.dom["pwned"], "undefined", "{what}");
            let dom = l.dom["text"].as_str().unwrap();
            let dom = dom.split_whitespace().collect::<Vec<_>>().join(" ");
            for t in texts {
                assert!(dom.contains(t.as_str()), "{what}: {t:?} is not in the page");
            }
        }
    }
}

/// The texts a reader must find on a branch's page: each user and assistant text block of the
/// active branch, as a Markdown parser reads it (emphasis, code and links as their text), its
/// white space folded.
fn branch_texts(file: &Path) -> Vec<String> {
    use pulldown_cmark::{Event, Options, Parser};
    let r = run(&[
        "-q",
        "show",
        file.to_str().unwrap(),
        "--branch",
        "--json",
        "--no-header",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut texts = Vec::new();
    for line in r.stdout.lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        // pi's messages, and the seed-000 dialect's (`user_message`, `assistant_message`).
        let content = match e["type"].as_str() {
            Some("user_message" | "assistant_message") => &e["content"],
            _ if matches!(e["message"]["role"].as_str(), Some("user" | "assistant")) => {
                &e["message"]["content"]
            }
            _ => continue,
        };
        let blocks = match content {
            Value::String(s) => vec![s.clone()],
            Value::Array(b) => b
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        let options =
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
        for block in blocks {
            for event in Parser::new_ext(&block, options) {
                if let Event::Text(t) | Event::Code(t) = event {
                    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !t.is_empty() {
                        texts.push(t);
                    }
                }
            }
        }
    }
    assert!(!texts.is_empty(), "{}: no text", file.display());
    texts
}

/// A session with what the toggles and the tree act on: a system prompt, thinking, a tool call
/// with a long output, an extension's message, another branch, and an entry whose id needs
/// escaping in an anchor, far down the page.
fn toggles_session() -> String {
    let output: String = (1..=30).map(|n| format!("output line {n}\n")).collect();
    let mut lines = vec![
        json!({"type":"session","version":3,"id":"0196bbbb-0000-7000-8000-0000000000bb","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}),
        json!({"type":"message","id":"s1","parentId":null,"timestamp":"2026-01-01T00:00:00.500Z",
               "message":{"role":"system","content":"system prompt probe","toolsAdded":[{"name":"bash","description":"Run a command."}],"timestamp":1}}),
        json!({"type":"message","id":"u1","parentId":"s1","timestamp":"2026-01-01T00:00:01.000Z",
               "message":{"role":"user","content":"first question probe","timestamp":2}}),
        json!({"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z",
               "message":{"role":"assistant","content":[{"type":"thinking","thinking":"thinking probe"},
               {"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"seq 30"}}],
               "provider":"p","model":"m","usage":{"cost":{"total":0.5}},"stopReason":"toolUse","timestamp":3}}),
        json!({"type":"message","id":"b1","parentId":"u1","timestamp":"2026-01-01T00:00:02.500Z",
               "message":{"role":"user","content":"other branch probe","timestamp":4}}),
        json!({"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z",
               "message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":output}],"isError":false,"timestamp":5}}),
        json!({"type":"custom_message","id":"c1","parentId":"r1","timestamp":"2026-01-01T00:00:04.000Z",
               "customType":"note","content":"custom probe","display":true}),
    ];
    let mut parent = "c1".to_owned();
    for k in 0..40 {
        let id = format!("f{k}");
        lines.push(json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-01-01T00:00:05.000Z",
            "message":{"role":"user","content":format!("filler {k}\n\nline\n\nline\n\nline"),"timestamp":6}}));
        parent = id;
    }
    lines.push(json!({"type":"message","id":"x/y z","parentId":parent,"timestamp":"2026-01-01T00:00:06.000Z",
        "message":{"role":"assistant","content":[{"type":"text","text":"deep link probe"}],"provider":"p","model":"m","stopReason":"stop","timestamp":7}}));
    for k in 0..40 {
        let id = format!("g{k}");
        let parent = if k == 0 {
            "x/y z".to_owned()
        } else {
            format!("g{}", k - 1)
        };
        lines.push(json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-01-01T00:00:07.000Z",
            "message":{"role":"user","content":format!("after {k}\n\nline\n\nline"),"timestamp":8}}));
    }
    lines.push(json!({"type":"label","id":"l1","parentId":"g39","timestamp":"2026-01-01T00:00:08.000Z","targetId":"u1","label":"start here"}));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Issue 48: the page's toggles work from the keyboard (T thinking, O tool output, H custom
/// messages, as pi's page) and change what is visible, checked in the DOM; the session tree
/// marks this branch and lists the other with its first message; `#ENTRY-ID` with an id that
/// needs escaping lands on its message; no error, no request; a screenshot is kept.
#[test]
fn toggles_keys_tree_and_deep_links_in_a_browser() {
    let Some(bin) = chromium() else {
        crate::common::missing_tool("chromium (the HTML export's browser test)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let r = run_with(
        example_env(),
        &["-q", "export", "-", "-f", "html"],
        toggles_session().as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let page = dir.path().join("toggles.html");
    std::fs::write(&page, &r.stdout).unwrap();
    let page_url = format!("file://{}", page.display());
    let mut b = Browser::launch(&bin);
    let (target, session) = open(&mut b, &page_url, true, false);
    let s = session.as_str();
    let state = |b: &mut Browser| -> Value {
        let js = r#"JSON.stringify({
          thinking: [...document.querySelectorAll('details.k')].map(d => d.open),
          output: [...document.querySelectorAll('main .tc>details')].map(d => d.open),
          preview: [...document.querySelectorAll('main .tc>pre.o')].map(p => p.offsetParent !== null),
          custom: [...document.querySelectorAll('main article.c')].map(a => getComputedStyle(a).display !== 'none'),
          text: document.querySelector('main').textContent,
          tree: document.querySelector('nav#tree').textContent,
          current: document.querySelectorAll('nav#tree li[aria-current]').length
        })"#;
        serde_json::from_str(b.eval(s, js).as_str().unwrap()).unwrap()
    };
    let key = |b: &mut Browser, k: &str| {
        for kind in ["keyDown", "keyUp"] {
            b.call(
                Some(s),
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": k, "text": k, "code": format!("Key{}", k.to_uppercase())}),
            );
        }
    };
    let before = state(&mut b);
    assert_eq!(before["thinking"], json!([false]), "{before}");
    assert_eq!(before["output"], json!([false]), "{before}");
    assert_eq!(
        before["preview"],
        json!([true]),
        "the output's first lines show"
    );
    assert_eq!(before["custom"], json!([true]), "{before}");
    for t in [
        "first question probe",
        "thinking probe",
        "output line 30",
        "custom probe",
        "deep link probe",
        "system prompt probe",
    ] {
        assert!(before["text"].as_str().unwrap().contains(t), "{t}");
    }
    let tree = before["tree"].as_str().unwrap();
    assert!(
        tree.contains("This branch") && tree.contains("other branch probe"),
        "{tree}"
    );
    assert!(tree.contains("--leaf b1"), "{tree}");
    assert_eq!(before["current"], 1);
    key(&mut b, "t");
    key(&mut b, "o");
    key(&mut b, "h");
    let after = state(&mut b);
    assert_eq!(after["thinking"], json!([true]), "T opens thinking");
    assert_eq!(after["output"], json!([true]), "O opens tool output");
    assert_eq!(after["custom"], json!([false]), "H hides custom messages");
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    b.eval(
        s,
        "document.querySelector('main article.a').scrollIntoView()",
    );
    let shot = b.call(Some(s), "Page.captureScreenshot", json!({"format": "png"}));
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(png_size(&png), (1000, 900));
    std::fs::write(shots.join("toggles-after-t-o-h.png"), &png).unwrap();
    key(&mut b, "t");
    key(&mut b, "h");
    let back = state(&mut b);
    assert_eq!(back["thinking"], json!([false]), "T again closes thinking");
    assert_eq!(
        back["custom"],
        json!([true]),
        "H again shows custom messages"
    );
    // A key typed into the search box searches, it toggles nothing.
    b.eval(s, "document.querySelector('#bar input').focus()");
    key(&mut b, "t");
    assert_eq!(state(&mut b)["thinking"], json!([false]));
    // pi's /tree filters, from the bar's list: user messages only, labeled only.
    let shown = |b: &mut Browser, filter: &str| -> Vec<String> {
        let js = format!("(() => {{ const f = document.querySelector('#bar select'); f.value = {}; f.dispatchEvent(new Event('change')); return [...document.querySelectorAll('main>article')].filter(a => getComputedStyle(a).display !== 'none').map(a => a.className) }})()", json!(filter));
        serde_json::from_value(b.eval(s, &js)).unwrap()
    };
    let users = shown(&mut b, "f-u");
    assert!(
        users.len() > 40 && users.iter().all(|c| c == "u"),
        "{users:?}"
    );
    assert_eq!(shown(&mut b, "f-l"), ["u"], "the labeled message");
    let label = b.eval(s, "document.querySelector('main>article .lb').textContent");
    assert_eq!(label, "start here");
    shown(&mut b, "f-n");
    let call = "getComputedStyle(document.querySelector('main .tc')).display";
    assert_eq!(b.eval(s, call), "none", "no tools: the call is hidden");
    shown(&mut b, "");
    assert_eq!(b.eval(s, call), "block");
    // Printed: no tree, no bar, every message.
    b.call(
        Some(s),
        "Emulation.setEmulatedMedia",
        json!({"media": "print"}),
    );
    let printed = b.eval(s, "[getComputedStyle(document.getElementById('tree')).display, getComputedStyle(document.getElementById('bar')).display].join()");
    assert_eq!(printed, "none,none");
    let (requests, errors) = reported(&b, s);
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(requests.iter().all(|u| *u == page_url), "{requests:?}");
    b.call(None, "Target.closeTarget", json!({"targetId": target}));

    // A deep link by the entry's own id, which the anchor escapes.
    let (target, session) = open(&mut b, &format!("{page_url}#x%2Fy%20z"), true, false);
    std::thread::sleep(Duration::from_millis(200));
    let top = b.eval(
        &session,
        "document.getElementById('m-x.2fy.20z').getBoundingClientRect().top",
    );
    let top = top.as_f64().unwrap();
    assert!(
        (-1.0..100.0).contains(&top),
        "the entry is at the top: {top}"
    );
    let scrolled = b.eval(&session, "window.scrollY").as_f64().unwrap();
    assert!(scrolled > 500.0, "{scrolled}");
    let (_, errors) = reported(&b, &session);
    assert!(errors.is_empty(), "{errors:#?}");
    b.call(None, "Target.closeTarget", json!({"targetId": target}));

    // With JavaScript off, the anchor's own fragment lands there too.
    let (target, session) = open(&mut b, &format!("{page_url}#m-x.2fy.20z"), false, false);
    std::thread::sleep(Duration::from_millis(300));
    let top = b.eval(
        &session,
        "document.getElementById('m-x.2fy.20z').getBoundingClientRect().top",
    );
    let top = top.as_f64().unwrap();
    assert!((-1.0..100.0).contains(&top), "without JavaScript: {top}");
    b.call(None, "Target.closeTarget", json!({"targetId": target}));
}

/// Issue 48: an archive's index loads with no error, request or serious accessibility
/// violation, links only to the pages beside it, and sorts by a column when its heading is
/// clicked (checked in the DOM).
#[test]
fn an_archive_index_sorts_in_a_browser() {
    let Some(bin) = chromium() else {
        crate::common::missing_tool("chromium (the HTML export's browser test)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("archive");
    let r = run(&["-q", "export", "--all", "-o", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let index = dir.join("index.html");
    let url = format!("file://{}", index.display());
    let axe = axe_source();
    let mut b = Browser::launch(&bin);
    let (target, session) = open(&mut b, &url, true, false);
    let s = session.as_str();
    let costs = |b: &mut Browser| -> Vec<f64> {
        let v = b.eval(s, "[...document.querySelectorAll('#index tbody tr')].map(r => parseFloat(r.cells[4].dataset.v))");
        serde_json::from_value(v).unwrap()
    };
    let before = costs(&mut b);
    assert_eq!(before.len(), 14);
    b.eval(
        s,
        "document.querySelectorAll('#index th button')[4].click()",
    );
    let up = costs(&mut b);
    assert!(up.windows(2).all(|w| w[0] <= w[1]), "ascending: {up:?}");
    assert_ne!(up, before);
    b.eval(
        s,
        "document.querySelectorAll('#index th button')[4].click()",
    );
    let down = costs(&mut b);
    assert!(
        down.windows(2).all(|w| w[0] >= w[1]),
        "descending: {down:?}"
    );
    let links: Vec<String> = serde_json::from_value(b.eval(
        s,
        "[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))",
    ))
    .unwrap();
    assert_eq!(links.len(), 14);
    for l in &links {
        assert!(dir.join(l).is_file() && !l.contains('/'), "{l}");
    }
    let (requests, errors) = reported(&b, s);
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(requests.iter().all(|u| *u == url), "{requests:?}");
    if let Some(source) = &axe {
        let violations = b.axe(s, source);
        assert!(violations.is_empty(), "{violations:#?}");
    }
    b.call(None, "Target.closeTarget", json!({"targetId": target}));
}

/// Issue 48: a page of 100,000 entries opens and scrolls (pi's own page was blank for big
/// sessions until 1.5): every article there, the last message's text in the DOM, no error.
#[test]
fn a_page_of_100000_entries_opens_and_scrolls() {
    let Some(bin) = chromium() else {
        crate::common::missing_tool("chromium (the HTML export's browser test)");
        return;
    };
    let mut jsonl = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"0196cccc-0000-7000-8000-0000000000cc\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n");
    let mut parent = String::from("null");
    for k in 0..100_000 {
        let id = format!("e{k:06}");
        let message = if k % 2 == 0 {
            format!("{{\"role\":\"user\",\"content\":\"question {k}\",\"timestamp\":1}}")
        } else {
            format!("{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"answer {k}\"}}],\"provider\":\"p\",\"model\":\"m\",\"stopReason\":\"stop\",\"timestamp\":2}}")
        };
        jsonl.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{message}}}\n"
        ));
        parent = format!("\"{id}\"");
    }
    let r = run_with(
        example_env(),
        &["-q", "export", "-", "-f", "html"],
        jsonl.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("big.html");
    std::fs::write(&page, &r.stdout).unwrap();
    let url = format!("file://{}", page.display());
    let mut b = Browser::launch(&bin);
    let started = Instant::now();
    let (target, session) = open(&mut b, &url, true, false);
    let s = session.as_str();
    let loaded = started.elapsed();
    let articles = b.eval(s, "document.querySelectorAll('main>article').length");
    assert_eq!(articles, 100_000);
    assert_eq!(
        b.eval(s, "document.querySelector('main>article:last-child').textContent.includes('answer 99999')"),
        true
    );
    b.eval(s, "window.scrollTo(0, document.body.scrollHeight)");
    let y = b.eval(s, "window.scrollY").as_f64().unwrap();
    assert!(y > 1_000_000.0, "scrolled to {y}");
    let (_, errors) = reported(&b, s);
    assert!(errors.is_empty(), "{errors:#?}");
    let paint = b.eval(
        s,
        "(performance.getEntriesByName('first-contentful-paint')[0] || {startTime: -1}).startTime",
    );
    eprintln!(
        "export_browser: 100,000 entries, {} bytes, loaded in {loaded:?}, first contentful paint at {paint} ms",
        r.stdout.len()
    );
    b.call(None, "Target.closeTarget", json!({"targetId": target}));
}

#[test]
fn a_page_with_subagent_runs_nested_keeps_its_policy_and_escapes_them() {
    let Some(bin) = chromium() else {
        eprintln!(
            "export_browser: SKIPPED (no chromium on PATH; .ci/run installs Debian's chromium)"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    use crate::subagent_reading::{run_in, store, HOSTILE, PARENT};
    store(tmp.path(), HOSTILE);
    let page = tmp.path().join("runs.html");
    run_in(
        tmp.path(),
        &[
            "-q",
            "export",
            PARENT,
            "-f",
            "html",
            "-o",
            page.to_str().unwrap(),
        ],
    );
    let axe = axe_source();
    let mut b = Browser::launch(&bin);
    let page_url = format!("file://{}", page.display());
    for javascript in [true, false] {
        let what = format!("runs page (JavaScript {javascript})");
        let l = load(&mut b, &page, javascript, false, None, axe.as_deref());
        assert!(
            l.errors.is_empty(),
            "{what}: console errors or CSP violations: {:#?}",
            l.errors
        );
        assert!(
            l.requests.iter().all(|u| *u == page_url),
            "{what}: {:?}",
            l.requests
        );
        assert_eq!(l.dom["pwned"], "undefined", "{what}");
        assert_eq!(l.dom["styled"], 0, "{what}: a style attribute");
        assert_eq!(l.dom["foreign"], 0, "{what}");
        // One script: the page's own (none with JavaScript off counts the same element).
        assert_eq!(l.dom["scripts"], 1, "{what}");
        let text = l.dom["text"].as_str().unwrap();
        // The runs' transcripts are in the page, collapsed; the hostile markup is text.
        for t in ["Scouted.", "review src/", "<script>window.pwned=1</script>"] {
            assert!(text.contains(t), "{what}: {t:?} is not in the page");
        }
        // The parent's five items are the page's; the runs' articles are inside them.
        assert_eq!(l.dom["articles"], 5, "{what}");
    }
}
