use super::*;

fn leaf(name: &str, value: &str) -> VariableNode {
    VariableNode {
        name: name.into(),
        value: value.into(),
        type_name: Some("int".into()),
        children: vec![],
        expandable: false,
        omitted_children: 0,
        methods_omitted: false,
        children_count: None,
        changed: false,
        old_value: None,
    }
}

#[test]
fn short_children_go_inline_and_omissions_are_noted() {
    let mut parent = leaf("acct", "0x7ffc");
    parent.type_name = Some("struct account *".into());
    parent.children = vec![leaf("id", "7"), leaf("balance", "100")];
    parent.omitted_children = 3;
    let text = variables(&[parent, leaf("amount", "0")], 2, Reveal(None));
    assert_eq!(
        text,
        "acct   (struct account *) = 0x7ffc {id = 7, balance = 100, … 3 more}\n\
         amount (int) = 0\n\
         … 2 more not shown ('debugger print NAME' shows any one)\n"
    );
}

#[test]
fn a_summary_stands_for_its_children_only_when_it_leaves_nothing_out() {
    assert!(summarises_children("[1, 2]"));
    assert!(summarises_children("main.Point {X: 2}"));
    assert!(summarises_children("('root',)"));
    assert!(summarises_children(
        "{'host': 'example.org', 'tags': ['a']}"
    ));
    assert!(summarises_children(
        "Cart {owner: \"ada\", items: Map(0) {}}"
    ));
    // Cut at the line limit, or with nested values elided: the children say the rest.
    assert!(!summarises_children(
        "{'root': [(1, 2), (3, 4)]… (2838 more characters)"
    ));
    assert!(!summarises_children("{a: {…}}"));
    assert!(!summarises_children("{parse: ƒ, valid: ƒ, …}"));
    assert!(!summarises_children(
        "{'server': {'tags': [...]}, 'users': [{...}, {...}]}"
    ));
    assert!(!summarises_children(
        "*main.Inventory {Owner: \"ada\", Items: []*main.Item len: 3, cap: 4, \
         [*(*main.Item)(0xc0000aa100),*(*main.Item)(0xc0000aa180)]}"
    ));
    assert!(!summarises_children(
        "main.Item {Name: \"bolt\", Meta: map[string]string [...]}"
    ));
    // Not collections at all.
    assert!(!summarises_children("0x00007fffffffe6c0"));
    assert!(!summarises_children("node @ 0x7fffffffe6c0"));
    assert!(!summarises_children("'xxxx… (3898 more characters)"));
}

#[test]
fn children_the_value_already_says_are_not_repeated_inline() {
    let with = |value: &str, children: &[(&str, &str)]| {
        let mut node = leaf("v", value);
        node.children = children.iter().map(|(n, v)| leaf(n, v)).collect();
        variables(&[node], 0, Reveal(None))
    };
    assert_eq!(with("Some(3)", &[("0", "3")]), "v (int) = Some(3)\n");
    assert_eq!(
        with("Some(\"MIT\")", &[("0", "\"MIT\"")]),
        "v (int) = Some(\"MIT\")\n"
    );
    assert_eq!(
        with("0x00005555555c1e40 7", &[("*boxed", "7")]),
        "v (int) = 0x00005555555c1e40 7\n"
    );
    assert_eq!(
        with("0x00007fffffffea1e \"zzz\"", &[("*name", "'z'")]),
        "v (int) = 0x00007fffffffea1e \"zzz\"\n"
    );
    assert_eq!(
        with("0x00007fffffffea1e \"\"", &[("*name", "'\\0'")]),
        "v (int) = 0x00007fffffffea1e \"\"\n"
    );
    // What the text does not say stays: a pointer's target, a struct's members, an array
    // whose numbers happen to be in its type.
    assert_eq!(
        with("0x00007fffffffe5c8", &[("*p", "1")]),
        "v (int) = 0x00007fffffffe5c8 {*p = 1}\n"
    );
    assert_eq!(
        with("0x7ffc", &[("id", "7"), ("balance", "100")]),
        "v (int) = 0x7ffc {id = 7, balance = 100}\n"
    );
    assert_eq!(
        with("int[1] @ 0x7ffc", &[("[0]", "1")]),
        "v (int) = int[1] @ 0x7ffc {[0] = 1}\n"
    );
    assert_eq!(
        with("0x0000000000000037 \"yes\"", &[("*s", "'n'")]),
        "v (int) = 0x0000000000000037 \"yes\" {*s = 'n'}\n"
    );
    assert_eq!(
        with("Some(2.3)", &[("0", "3")]),
        "v (int) = Some(2.3) {0 = 3}\n"
    );
    // A summary that elides, and children that elide the same, say it once.
    let mut iter = leaf(
        "iter",
        "IntoIter { inner: ManuallyDrop { value: MaybeDangling {…} } }",
    );
    let mut inner = leaf("inner", "ManuallyDrop { value: MaybeDangling {…} }");
    inner.expandable = true;
    iter.children = vec![inner];
    assert_eq!(
        variables(&[iter], 0, Reveal(None)),
        "iter (int) = IntoIter { inner: ManuallyDrop { value: MaybeDangling {…} } }\n"
    );
    assert_eq!(
        with("{kind: \"retag\", …}", &[("kind", "\"retag\"")]),
        "v (int) = {kind: \"retag\", …}\n"
    );
    // Past a preview's `…`, children the text does not hold are worth the line: the whole
    // value, in the preview's words, in its place.
    assert_eq!(
        with("{kind: \"retag\", …}", &[("kind", "\"retag\""), ("n", "1")]),
        "v (int) = {kind: \"retag\", n: 1}\n"
    );
    assert_eq!(
        with("{...}", &[("x", "1"), ("y", "2")]),
        "v (int) = {x = 1, y = 2}\n"
    );
    // Delve's pointer and its target, the same text twice, once (`print` reads deeper).
    let mut pointer = leaf("p", "*main.T {X: (*main.X)(0xc000)}");
    let mut target = leaf("*p", "main.T {X: (*main.X)(0xc000)}");
    target.expandable = true;
    pointer.children = vec![target];
    assert_eq!(
        variables(&[pointer], 0, Reveal(None)),
        "p (int) = *main.T {X: (*main.X)(0xc000)}\n"
    );
}

#[test]
fn a_stop_reports_locals_are_one_line_each_and_cut() {
    let mut acct = leaf("acct", "0x7ffc");
    acct.children = vec![leaf("id", "7"), leaf("balance", "101")];
    acct.changed = true;
    let long = leaf("text", &"x".repeat(300));
    let text = stop_locals(&[acct, long], 18);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "* acct (int) = 0x7ffc {id = 7, balance = 101}");
    assert!(lines[1].starts_with("  text (int) = xxx"), "{text}");
    assert!(lines[1].ends_with("more characters)"), "{text}");
    assert!(lines[1].chars().count() <= STOP_LINE_CHARS + 2, "{text}");
    assert_eq!(lines[2], "  18 more: `debugger locals`");
}

#[test]
fn changed_values_get_a_gutter_mark() {
    let mut acct = leaf("acct", "0x7ffc");
    let mut balance = leaf("balance", "101");
    balance.changed = true;
    acct.children = vec![leaf("id", "7"), balance];
    acct.changed = true;
    let text = variables(&[acct, leaf("amount", "1")], 0, Reveal(None));
    assert_eq!(
        text,
        "* acct   (int) = 0x7ffc {id = 7, balance = 101}\n  amount (int) = 1\n"
    );
    // With nothing changed, no gutter at all.
    assert_eq!(
        variables(&[leaf("n", "3")], 0, Reveal(None)),
        "n (int) = 3\n"
    );
}

#[test]
fn a_whole_summary_stands_alone_and_an_elided_one_is_followed_by_its_children() {
    let mut list = leaf("items", "[1, 2]");
    list.children = vec![leaf("0", "1"), leaf("1", "2")];
    assert_eq!(
        variables(&[list], 0, Reveal(None)),
        "items (int) = [1, 2]\n"
    );
    let mut long = leaf("items", "[1, 2, …]");
    long.children = vec![leaf("0", "1"), leaf("1", "2"), leaf("2", "3")];
    assert_eq!(
        variables(&[long], 0, Reveal(None)),
        "items (int) = [1, 2, 3]\n"
    );
    let mut nested = leaf("tree", "{a: {…}}");
    nested.children = vec![leaf("a", "{b: 1}")];
    assert_eq!(
        variables(&[nested], 0, Reveal(None)),
        "tree (int) = {a: {b: 1}}\n"
    );
}

#[test]
fn a_struct_without_value_text_shows_its_members_after_the_equals_sign() {
    let mut member = leaf("value", "");
    member.type_name = Some("struct account".into());
    member.expandable = true;
    let mut pointer = leaf("acct", "0x7ffc");
    pointer.type_name = Some("struct account *".into());
    pointer.children = vec![member];
    let mut record = leaf("acct", "");
    record.type_name = Some("struct account".into());
    record.children = vec![leaf("id", "7")];
    let mut unexpanded = leaf("inner", "");
    unexpanded.type_name = Some("struct inner".into());
    unexpanded.expandable = true;
    assert_eq!(
        variables(&[pointer, record, unexpanded], 0, Reveal(None)),
        "acct  (struct account *) = 0x7ffc {value = {…}}\n\
         acct  (struct account) = {id = 7}\n\
         inner (struct inner) = {…}\n"
    );
}
