//! The debugpy adapter's launch and attach arguments and its breakpoint corrections.

use super::breakpoints::*;
use super::*;

#[test]
fn pythons_are_looked_for_as_each_os_lays_them_out() {
    let venv = Path::new("venv");
    assert_eq!(
        venv_python(Os::Linux, venv),
        venv.join("bin").join("python")
    );
    assert_eq!(
        venv_python(Os::MacOs, venv),
        venv.join("bin").join("python")
    );
    assert_eq!(
        venv_python(Os::Windows, venv),
        venv.join("Scripts").join("python.exe")
    );
    assert_eq!(python::python_commands(Os::Windows)[0], ["py", "-3"]);
    assert!(install_hint(Os::Windows).ends_with("'py -3 -m pip install debugpy'"));
    assert!(install_hint(Os::Linux).ends_with("'python3 -m pip install debugpy'"));
}
use crate::dap::requests::{
    BreakpointOptions, BreakpointSource, FunctionBreakpoint, SetBreakpointsArguments,
    SetFunctionBreakpointsArguments, SourceBreakpoint,
};
use crate::ipc::protocol::BreakpointSpec;

fn adapter() -> Debugpy {
    Debugpy::with(PathBuf::from("/usr/bin/python3"), Vec::new())
}

#[test]
fn launch_hides_debugpy_groups_and_does_not_stop_on_sys_exit() {
    let spec = LaunchSpec {
        program: PathBuf::from("/tmp/app.py"),
        args: vec!["x".into()],
        cwd: PathBuf::from("/tmp"),
        env: vec![("K".into(), "V".into())],
        adapter: None,
        stop_on_entry: false,
        breakpoints: Vec::new(),
        connect: None,
        ..launch_spec(false, Vec::new())
    };
    let arguments = adapter().launch_arguments(&spec, None);
    assert_eq!(arguments["program"], "/tmp/app.py");
    assert_eq!(arguments["justMyCode"], false);
    assert_eq!(arguments["console"], "internalConsole");
    assert_eq!(arguments["env"]["K"], "V");
    assert_eq!(arguments["variablePresentation"]["special"], "hide");
    assert_eq!(arguments["variablePresentation"]["function"], "group");
    assert_eq!(arguments["variablePresentation"]["class"], "inline");
    assert_eq!(arguments["breakOnSystemExit"], json!([]));
}

#[test]
fn attach_gets_the_same_presentation() {
    let spec = AttachSpec {
        pid: None,
        adapter: None,
        breakpoints: Vec::new(),
        connect: Some("127.0.0.1:5678".into()),
    };
    let arguments = adapter().attach_arguments(&spec);
    assert_eq!(arguments["request"], "attach");
    assert!(arguments.get("processId").is_none());
    assert_eq!(arguments["variablePresentation"]["special"], "hide");
    assert_eq!(arguments["breakOnSystemExit"], json!([]));
}

fn line_spec(file: &str, line: u32) -> BreakpointSpec {
    BreakpointSpec {
        location: Location::Line {
            file: PathBuf::from(file),
            line,
        },
        requested: None,
        condition: None,
        hit_count: None,
        log_message: None,
    }
}

fn launch_spec(just_my_code: bool, breakpoints: Vec<BreakpointSpec>) -> LaunchSpec {
    let mut spec: LaunchSpec = serde_json::from_value(json!({
        "program": "/nonexistent/app.py", "args": [], "cwd": "/nonexistent", "env": [],
        "adapter": null, "stop_on_entry": false, "breakpoints": [],
    }))
    .expect("launch spec");
    spec.options.python.just_my_code = just_my_code;
    spec.breakpoints = breakpoints;
    spec
}

#[test]
fn files_with_breakpoints_at_launch_are_the_users_code_under_just_my_code() {
    let breakpoints = vec![
        line_spec("/nonexistent/lib/json/decoder.py", 337),
        line_spec("/nonexistent/lib/json/decoder.py", 340),
        line_spec("relative.py", 3),
        BreakpointSpec {
            location: Location::Function {
                name: "produce".into(),
            },
            ..line_spec("x.py", 1)
        },
    ];
    let debugpy = adapter();
    let arguments = debugpy.launch_arguments(&launch_spec(true, breakpoints.clone()), None);
    assert_eq!(
        arguments["rules"],
        json!([{ "path": "/nonexistent/lib/json/decoder.py", "include": true }])
    );
    assert_eq!(
        debugpy.run().program,
        Some(PathBuf::from("/nonexistent/app.py"))
    );

    // Without justMyCode nothing is filtered, so no rule is needed.
    let arguments = adapter().launch_arguments(&launch_spec(false, breakpoints), None);
    assert!(arguments.get("rules").is_none(), "{arguments}");
    let arguments = adapter().launch_arguments(&launch_spec(true, Vec::new()), None);
    assert!(arguments.get("rules").is_none(), "{arguments}");
}

fn answered(verified: bool, message: Option<&str>) -> DapBreakpoint {
    DapBreakpoint {
        id: Some(1),
        verified,
        message: message.map(str::to_string),
        ..DapBreakpoint::default()
    }
}

#[test]
fn answers_that_would_mislead_are_corrected() {
    let debugpy = adapter();
    debugpy.run().unplaced.insert(
        "raw_decode".into(),
        unfound_message("raw_decode", Path::new("/p")),
    );
    let function = |name: &str| FunctionBreakpoint {
        name: name.into(),
        options: BreakpointOptions::default(),
    };
    let sent = BreakpointList::Functions(SetFunctionBreakpointsArguments {
        breakpoints: vec![function("square"), function("raw_decode")],
    });
    let mut answer = [answered(true, None), answered(true, None)];
    debugpy.review(&sent, &mut answer);
    assert!(answer[0].verified && answer[0].message.is_none());
    assert!(!answer[1].verified);
    let message = answer[1].message.as_deref().unwrap_or("");
    assert!(message.contains("'raw_decode' in /p"), "{message}");
    assert!(message.contains("--no-just-my-code"), "{message}");

    // debugpy's own words name launch.json; ours name the flag.
    let sent = BreakpointList::Source(SetBreakpointsArguments {
        source: BreakpointSource {
            path: "/lib/json/decoder.py".into(),
            name: None,
        },
        breakpoints: vec![SourceBreakpoint {
            line: 3,
            options: BreakpointOptions::default(),
        }],
    });
    let mut answer = [answered(
        false,
        Some(
            "Breakpoint in file excluded by filters.\nNote: may be excluded because of \"justMyCode\"",
        ),
    )];
    debugpy.review(&sent, &mut answer);
    assert!(!answer[0].verified);
    assert_eq!(answer[0].message.as_deref(), Some(EXCLUDED_FILE));
}
