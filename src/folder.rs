//! pi's session folders: where pi keeps sessions, and a listing of a folder
//! with each file's [`Info`] and its lineage (forks under their sources).
//!
//! pi writes a project's sessions to `<agent dir>/sessions/--<cwd>--/`, the
//! agent dir being `$PI_CODING_AGENT_DIR` (a leading `~` expanded) or
//! `~/.pi/agent`, and the cwd with its leading separator dropped and each
//! `/`, `\` or `:` made `-`.

use std::path::{Path, PathBuf};

use crate::file::{Error, Info, SessionFile};

/// pi's agent folder: `$PI_CODING_AGENT_DIR` if set (a leading `~`
/// expanded), else `~/.pi/agent`. `None` when neither it nor a home is known.
pub fn agent_dir() -> Option<PathBuf> {
    let home = || {
        std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    };
    match std::env::var("PI_CODING_AGENT_DIR") {
        Ok(dir) if !dir.is_empty() => Some(match dir.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with(['/', '\\']) => {
                home()?.join(rest.trim_start_matches(['/', '\\']))
            }
            _ => PathBuf::from(dir),
        }),
        _ => Some(home()?.join(".pi").join("agent")),
    }
}

/// The folder of every project's sessions: `<agent dir>/sessions`.
pub fn sessions_dir() -> Option<PathBuf> {
    agent_dir().map(|d| d.join("sessions"))
}

/// The folder name pi gives a project's sessions: `/home/me/app` is
/// `--home-me-app--`.
///
/// ```
/// assert_eq!(session_tree::folder_name("/home/me/app"), "--home-me-app--");
/// assert_eq!(session_tree::folder_name(r"C:\work\app"), "--C--work-app--");
/// ```
pub fn folder_name(cwd: &str) -> String {
    let rest = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", rest.replace(['/', '\\', ':'], "-"))
}

/// The folder of one project's sessions (`cwd` as pi resolved it, absolute).
pub fn project_dir(cwd: &str) -> Option<PathBuf> {
    sessions_dir().map(|d| d.join(folder_name(cwd)))
}

/// One file of a listing ([`list`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct Listed {
    /// The file.
    pub path: PathBuf,
    /// What pi's session list shows of it; `Ok(None)` when it has no session
    /// header, `Err` when it could not be read (the listing goes on).
    pub info: Result<Option<Info>, Error>,
    /// The file it was forked or branched from (its header's
    /// `parentSession`), as an index into the listing, when that file is in it.
    pub parent: Option<usize>,
}

/// Every `.jsonl` file under `dir` (sub-folders included, so a sessions
/// folder lists every project; a folder reached again through a symbolic
/// link is listed once, under its first path), sorted by path, with its [`Info`] and its
/// parent in the listing. Files are read on several threads. A file that
/// cannot be read is a row with its error (as is a named pipe, which is
/// not opened); only an unreadable `dir` fails.
pub fn list(dir: impl AsRef<Path>) -> Result<Vec<Listed>, Error> {
    let dir = dir.as_ref();
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_owned()];
    // Each folder is listed once, under the first path that reaches it in
    // path order: a symbolic link back to a folder above (or two links to
    // one folder) would otherwise list its files again at every depth, and
    // two links to an ancestor double the walk at each level until the
    // system's limit on links in a path, about forty levels down.
    let mut seen = std::collections::HashSet::new();
    while let Some(d) = stack.pop() {
        if let Ok(real) = std::fs::canonicalize(&d) {
            if !seen.insert(real) {
                continue;
            }
        }
        let entries = std::fs::read_dir(&d).map_err(|source| Error::Io {
            path: Some(d.clone()),
            source,
        });
        let entries = match entries {
            Ok(e) => e,
            // Only the folder asked for must be readable; a sub-folder that is
            // not is skipped, as a file that is not would be a row.
            Err(e) if d == dir => return Err(e),
            Err(_) => continue,
        };
        let mut folders = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                paths.push(path);
            }
        }
        // Popped in path order, whatever order the system lists them in.
        folders.sort_unstable_by(|a, b| b.cmp(a));
        stack.extend(folders);
    }
    paths.sort();
    let infos = read_all(&paths);
    let mut listed: Vec<Listed> = paths
        .into_iter()
        .zip(infos)
        .map(|(path, info)| Listed {
            path,
            info,
            parent: None,
        })
        .collect();
    // Paths to rows, looked up once per fork (not a scan of every row for
    // each: a folder of many forks would take their number squared).
    let rows: std::collections::HashMap<PathBuf, usize> = listed
        .iter()
        .enumerate()
        .map(|(i, l)| (l.path.clone(), i))
        .collect();
    for row in &mut listed {
        let parent = match &row.info {
            Ok(Some(info)) => info.parent_session.as_deref(),
            _ => None,
        };
        row.parent = parent.and_then(|p| rows.get(Path::new(p)).copied());
    }
    Ok(listed)
}

/// Each file's info, on up to as many threads as the machine has cores (one
/// for a single core or a single file: the rows are the same either way).
fn read_all(paths: &[PathBuf]) -> Vec<Result<Option<Info>, Error>> {
    let read = |p: &PathBuf| {
        // A named pipe or a device with a session's name would block the
        // listing forever (pi's list waits on it too): only files are read.
        if std::fs::metadata(p).is_ok_and(|m| !m.is_file()) {
            return Err(Error::Io {
                path: Some(p.clone()),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "not a regular file; not read",
                ),
            });
        }
        SessionFile::open(p).map(|s| s.info())
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = paths.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(read).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            // A panic in a reader is the caller's, as on one thread: its
            // rows are never dropped (which would pair files with others' rows).
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_are_pis() {
        assert_eq!(folder_name("/work/app/web"), "--work-app-web--");
        assert_eq!(folder_name("relative/x"), "--relative-x--");
        assert_eq!(folder_name("/"), "----");
    }

    #[test]
    fn a_listing_links_forks_and_keeps_bad_files_as_rows() {
        let dir = std::env::temp_dir().join(format!("session-tree-list-{}", std::process::id()));
        let project = dir.join("--w--");
        std::fs::create_dir_all(&project).unwrap();
        let header = |id: &str, parent: Option<&Path>| {
            let parent = parent.map_or(String::new(), |p| {
                format!(
                    ",\"parentSession\":{}",
                    crate::json::stringify(&p.to_string_lossy())
                )
            });
            format!("{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"{parent}}}\n")
        };
        let a = project.join("a.jsonl");
        std::fs::write(&a, header("a", None)).unwrap();
        std::fs::write(project.join("b.jsonl"), header("b", Some(&a))).unwrap();
        std::fs::write(project.join("c.jsonl"), "not json\n").unwrap();
        std::fs::write(project.join("notes.txt"), "x").unwrap();
        let listed = list(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let names: Vec<_> = listed
            .iter()
            .map(|l| l.path.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["a.jsonl", "b.jsonl", "c.jsonl"]);
        assert_eq!(listed[0].info.as_ref().unwrap().as_ref().unwrap().id, "a");
        assert_eq!(listed[0].parent, None);
        assert_eq!(listed[1].parent, Some(0));
        assert!(matches!(listed[2].info, Ok(None)));
        assert!(list(dir.join("missing")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_reached_twice_through_links_is_listed_once() {
        let dir = std::env::temp_dir().join(format!("session-tree-links-{}", std::process::id()));
        let project = dir.join("--w--");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join("a.jsonl"),
            "{\"type\":\"session\",\"version\":3,\"id\":\"a\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n",
        )
        .unwrap();
        // A link to its own folder (as a careless `ln` leaves), and a
        // second name for that folder.
        std::os::unix::fs::symlink(".", project.join("again")).unwrap();
        std::os::unix::fs::symlink("--w--", dir.join("--z--")).unwrap();
        let listed = list(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        let paths: Vec<_> = listed.unwrap().into_iter().map(|l| l.path).collect();
        assert_eq!(paths, [project.join("a.jsonl")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_a_row_with_an_error_not_a_wait() {
        let dir = std::env::temp_dir().join(format!("session-tree-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("p.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            std::fs::remove_dir_all(&dir).unwrap();
            return; // no mkfifo here: nothing to test
        }
        // On a thread: without the check, the listing never returns.
        let (send, receive) = std::sync::mpsc::channel();
        let listed_dir = dir.clone();
        std::thread::spawn(move || send.send(list(&listed_dir)));
        let listed = receive.recv_timeout(std::time::Duration::from_secs(60));
        if listed.is_err() {
            // Unblock the reader, then fail.
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        let listed = listed.expect("list waits on a named pipe").unwrap();
        assert_eq!(listed.len(), 1);
        let Err(Error::Io { path, .. }) = &listed[0].info else {
            panic!("{:?}", listed[0].info)
        };
        assert_eq!(path.as_deref(), Some(fifo.as_path()));
    }
}

#[cfg(test)]
mod mutant_tests;
