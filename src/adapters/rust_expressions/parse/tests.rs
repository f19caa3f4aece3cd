use super::*;

fn chain(text: &str) -> Chain {
    match parse(text) {
        Some(Ok(chain)) => chain,
        other => panic!("{text}: {other:?}"),
    }
}

fn name(n: &str) -> Root {
    Root::Name(n.to_string())
}

#[test]
fn an_agents_expressions_read_as_a_root_and_steps() {
    assert_eq!(
        chain("req.comparators.len()"),
        Chain {
            prefix: vec![],
            root: name("req"),
            steps: vec![Step::Field("comparators".into()), Step::Method(Method::Len)],
        }
    );
    assert_eq!(
        chain("*map.get(&\"k\").unwrap()").steps,
        vec![
            Step::Method(Method::Get(Arg::Literal(Literal::Str("k".into())))),
            Step::Method(Method::Unwrap),
        ]
    );
    assert_eq!(chain("&mut v[2]").prefix, vec![Prefix::Borrow]);
    assert_eq!(
        chain("v[i].0").steps,
        vec![
            Step::Index(Arg::Path(Box::new(Chain {
                prefix: vec![],
                root: name("i"),
                steps: vec![],
            }))),
            Step::Field("0".into()),
        ]
    );
    assert_eq!(
        chain("(*self).ranks[10u32]").root,
        Root::Group(Box::new(Chain {
            prefix: vec![Prefix::Deref],
            root: name("self"),
            steps: vec![],
        }))
    );
    assert_eq!(
        chain("m[0x1f]").steps,
        vec![Step::Index(Arg::Literal(Literal::Integer(31)))]
    );
    assert_eq!(
        chain("o.expect(\"a \\\"b\\\"\")").steps,
        vec![Step::Method(Method::Expect("a \"b\"".into()))]
    );
    assert_eq!(
        chain("s.as_str()").steps,
        vec![Step::Method(Method::Same("as_str"))]
    );
    assert_eq!(chain("c.get('x')").to_string(), "c.get('x')");
    assert_eq!(chain(" a . b [ 1 ] ").to_string(), "a.b[1]");
    assert_eq!(
        chain("req->comparators.len()").to_string(),
        "req.comparators.len()"
    );
}

#[test]
fn other_text_is_left_to_the_adapter() {
    for text in [
        "a + 1",
        "v.len() > 3",
        "std::mem::size_of::<u8>()",
        "a as u64",
        "f(1)",
        "1",
        "\"s\"",
        "a[1..3]",
        "(a",
        "",
        "a.",
    ] {
        assert_eq!(parse(text), None, "{text}");
    }
}

#[test]
fn methods_run_in_the_program_are_refused_by_name() {
    assert_eq!(
        parse("v.iter()"),
        Some(Err(Unsupported::Method("iter".into())))
    );
    assert_eq!(
        parse("v.get()"),
        Some(Err(Unsupported::Arguments("get".into())))
    );
    assert_eq!(
        parse("v.len(1)"),
        Some(Err(Unsupported::Arguments("len".into())))
    );
}

#[test]
fn what_needs_the_debugger_is_told_apart() {
    assert!(chain("v.len()").needs_rust());
    assert!(chain("m[\"k\"]").needs_rust());
    assert!(!chain("a.b[1]").needs_rust());
    assert!(chain("x").is_bare_name());
    assert!(!chain("*x").is_bare_name());
}

#[test]
fn conditions_name_the_std_method_they_call() {
    assert_eq!(first_method_call("v.len() > 3").as_deref(), Some("len"));
    assert_eq!(first_method_call("s == \"a.len()\""), None);
    assert_eq!(first_method_call("self.ready()"), None);
    assert_eq!(first_method_call("n > 3"), None);
}
