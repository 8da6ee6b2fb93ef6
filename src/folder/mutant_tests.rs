//! pi's folder layout and the lister, against what pi 1.6 does: `getAgentDir`
//! (`$PI_CODING_AGENT_DIR` when not empty, through `normalizePath`'s `~`
//! expansion, else `join(homedir(), ".pi", "agent")`) and
//! `getDefaultSessionDirPath` (`join(agentDir, "sessions", safePath)`).

use super::*;

/// Sets (or, with `None`, removes) an environment variable.
fn set(name: &str, value: Option<&str>) {
    match value {
        Some(v) => std::env::set_var(name, v),
        None => std::env::remove_var(name),
    }
}

/// The only test of the crate that reads or sets these variables: the cases
/// run one after the other, and the variables are put back at the end.
#[test]
fn the_agent_dir_is_pis() {
    let names = ["PI_CODING_AGENT_DIR", "HOME", "USERPROFILE"];
    let saved: Vec<_> = names.iter().map(std::env::var_os).collect();
    set("HOME", Some("/h1"));
    set("USERPROFILE", None);
    let cases: [(Option<&str>, &str); 8] = [
        // Unset or empty (falsy in JS): the default under the home.
        (None, "/h1/.pi/agent"),
        (Some(""), "/h1/.pi/agent"),
        (Some("/a/b"), "/a/b"),
        (Some("rel/x"), "rel/x"),
        // normalizePath: `~` is the home, `~/x` is join(home, "x").
        (Some("~"), "/h1"),
        (Some("~/x/y"), "/h1/x/y"),
        (Some("~/"), "/h1"),
        // Any other leading `~` is a name like another.
        (Some("~x"), "~x"),
    ];
    for (var, want) in cases {
        set("PI_CODING_AGENT_DIR", var);
        let want = PathBuf::from(want);
        assert_eq!(agent_dir(), Some(want.clone()), "{var:?}");
        assert_eq!(sessions_dir(), Some(want.join("sessions")), "{var:?}");
        assert_eq!(
            project_dir("/work/app"),
            Some(want.join("sessions").join("--work-app--")),
            "{var:?}"
        );
    }
    // No HOME: USERPROFILE is the home (Windows); neither, no folder unless
    // the variable names one that needs no home.
    set("HOME", None);
    set("USERPROFILE", Some("/u2"));
    set("PI_CODING_AGENT_DIR", None);
    assert_eq!(agent_dir(), Some(PathBuf::from("/u2/.pi/agent")));
    set("USERPROFILE", None);
    assert_eq!(agent_dir(), None);
    assert_eq!(sessions_dir(), None);
    assert_eq!(project_dir("/w"), None);
    set("PI_CODING_AGENT_DIR", Some("~/x"));
    assert_eq!(agent_dir(), None);
    set("PI_CODING_AGENT_DIR", Some("/abs"));
    assert_eq!(agent_dir(), Some(PathBuf::from("/abs")));
    for (name, value) in names.iter().zip(saved) {
        match value {
            Some(v) => std::env::set_var(name, v),
            None => std::env::remove_var(name),
        }
    }
}

#[test]
fn folder_names_follow_pis_replacements() {
    // `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`
    assert_eq!(folder_name("/home/me/app"), "--home-me-app--");
    assert_eq!(folder_name("\\srv\\x"), "--srv-x--");
    assert_eq!(folder_name("C:\\work\\app"), "--C--work-app--");
    assert_eq!(folder_name("//double"), "---double--");
    assert_eq!(folder_name("a:b/c\\d"), "--a-b-c-d--");
    assert_eq!(folder_name(""), "----");
}

/// A fresh folder under the system's temporary one.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("session-tree-folder-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn header(id: &str, parent: Option<&Path>) -> String {
    let parent = parent.map_or(String::new(), |p| {
        format!(
            ",\"parentSession\":{}",
            crate::json::stringify(&p.to_string_lossy())
        )
    });
    format!("{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"{parent}}}\n")
}

#[test]
fn an_empty_folder_lists_nothing() {
    let dir = scratch("empty");
    let listed = list(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(listed.is_empty());
}

/// Many files in several projects (more than one thread's share), forks
/// across projects, and a parent that is not in the listing.
#[test]
fn a_big_listing_keeps_every_file_in_path_order_with_its_parent() {
    let dir = scratch("big");
    let mut want = Vec::new();
    for p in ["--p1--", "--p2--", "--p3--"] {
        std::fs::create_dir_all(dir.join(p)).unwrap();
        for i in 0..7 {
            want.push(dir.join(p).join(format!("s{i}.jsonl")));
        }
    }
    want.sort();
    for (i, path) in want.iter().enumerate() {
        // Each file after the first forks the one two before it (which sorts
        // before it), and the first names a file that is not there.
        let missing = dir.join("gone.jsonl");
        let parent = if i >= 2 { &want[i - 2] } else { &missing };
        std::fs::write(path, header(&format!("id{i}"), Some(parent))).unwrap();
    }
    let listed = list(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let paths: Vec<_> = listed.iter().map(|l| l.path.clone()).collect();
    assert_eq!(paths, want);
    for (i, l) in listed.iter().enumerate() {
        let info = l.info.as_ref().unwrap().as_ref().unwrap();
        assert_eq!(info.id, format!("id{i}"));
        assert_eq!(l.parent, i.checked_sub(2), "{i}");
    }
}

/// pi's session list goes on past a folder it cannot read; only the folder
/// asked for must be readable. Root reads a folder without permissions, so
/// a run as root checks this in a copy of the test binary run as `nobody`
/// (see [`as_nobody`]).
#[test]
fn an_unreadable_sub_folder_is_skipped() {
    let dir = scratch("locked");
    std::fs::write(dir.join("a.jsonl"), header("a", None)).unwrap();
    let locked = dir.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    std::fs::write(locked.join("b.jsonl"), header("b", None)).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    let unreadable = std::fs::read_dir(&locked).is_err();
    let listed = list(&dir);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
    if !unreadable {
        as_nobody("folder::mutant_tests::an_unreadable_sub_folder_is_skipped");
        return;
    }
    let listed = listed.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].path, dir.join("a.jsonl"));
}

/// Runs the test `name` again, in a copy of this test binary, as user and
/// group 65534 (`nobody`), for whom permissions hold, and fails if it fails
/// there. Only root can do that; the child, itself not root, never comes
/// back here. The copy goes to `/tmp`, since the checkout may be out of
/// nobody's reach.
#[cfg(unix)]
fn as_nobody(name: &str) {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().unwrap();
    let copy = Path::new("/tmp").join(format!("session-tree-as-nobody-{}", std::process::id()));
    std::fs::copy(&exe, &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = std::process::Command::new(&copy)
        .args([name, "--exact", "--test-threads=1"])
        .uid(65534)
        .gid(65534)
        .current_dir("/tmp")
        .env("TMPDIR", "/tmp")
        .output();
    std::fs::remove_file(&copy).unwrap();
    let out = match out {
        Ok(out) => out,
        // Where no user can be switched to or /tmp cannot run programs, this
        // cannot be checked; the run says so rather than failing for it.
        Err(e) => {
            eprintln!("{name}: not checked: cannot run a copy as nobody: {e}");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{name} as nobody: {}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[cfg(not(unix))]
fn as_nobody(name: &str) {
    eprintln!("{name}: a folder without permissions is read here; not checked");
}

#[test]
fn a_folder_that_cannot_be_read_is_the_error() {
    let dir = scratch("missing");
    std::fs::remove_dir_all(&dir).unwrap();
    match list(&dir) {
        Err(Error::Io { path, .. }) => assert_eq!(path.as_deref(), Some(dir.as_path())),
        other => panic!("{other:?}"),
    }
}
