//! The built binary as a child process, its log lines, and the files it is started with.

use super::{fixture_text, pki, write_pair, Pki};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Proc {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Proc {
    pub fn spawn(args: &[&str], envs: &[(&str, &str)]) -> Proc {
        let mut command = Command::new(env!("CARGO_BIN_EXE_zoneguard"));
        command
            .arg("serve")
            .args(args)
            .stderr(Stdio::piped())
            .stdout(Stdio::null());
        for (k, v) in envs {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("binary runs");
        let stderr = child.stderr.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Proc { child, lines }
    }

    pub fn log(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// The JSON log events so far.
    pub fn events(&self) -> Vec<Value> {
        self.log()
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Wait for the "serving" event; returns the HTTPS and probe addresses.
    pub fn wait_serving(&mut self) -> (SocketAddr, SocketAddr) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(e) = self
                .events()
                .into_iter()
                .find(|e| e["message"] == "zoneguard webhook serving")
            {
                let addr = |k: &str| e[k].as_str().unwrap().parse().unwrap();
                return (addr("listen"), addr("probe_listen"));
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("exited early with {status}: {:?}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("not serving: {:?}", self.log());
    }

    pub fn wait_exit(&mut self, within: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("did not exit within {within:?}: {:?}", self.log());
    }

    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Files {
    pub dir: tempfile::TempDir,
    pub pki: Pki,
}

impl Files {
    pub fn new() -> Files {
        let dir = tempfile::tempdir().unwrap();
        let pki = pki();
        write_pair(dir.path(), &pki.leaf);
        std::fs::write(dir.path().join("rules.yaml"), fixture_text("rules.yaml")).unwrap();
        Files { dir, pki }
    }

    pub fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    pub fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["--listen", "127.0.0.1:0", "--probe-listen", "127.0.0.1:0"]
            .map(String::from)
            .to_vec();
        args.extend(["--rules".into(), self.path("rules.yaml")]);
        args.extend([
            "--tls-cert".into(),
            self.path("tls.crt"),
            "--tls-key".into(),
            self.path("tls.key"),
        ]);
        args
    }
}

pub fn url(addr: SocketAddr, path: &str) -> String {
    format!("https://localhost:{}{path}", addr.port())
}
