//! Evaluation and `set` over the in-memory heap of `test_heap`: a frame in
//! `com.shop.Cart.checkout` whose `this` is a cart.

use super::test_heap::{TestHeap, boxed, int, shop};
use super::{ExpressionError, Place, assign, assign_place, evaluate, evaluate_condition};
use crate::adapters::java::heap::{HeapError, JavaValue};

async fn value(heap: &TestHeap, source: &str) -> JavaValue {
    evaluate(heap, source)
        .await
        .unwrap_or_else(|e| panic!("{source}: {e}"))
}

/// The text of a string-valued expression.
async fn text(heap: &TestHeap, source: &str) -> String {
    let value = value(heap, source).await;
    assert!(
        matches!(&value, JavaValue::Object(o) if o.kind == crate::adapters::java::heap::ObjectKind::String),
        "{source} gave {value:?}"
    );
    heap.text(&value)
}

async fn error(heap: &TestHeap, source: &str) -> ExpressionError {
    match evaluate(heap, source).await {
        Err(error) => error,
        Ok(value) => panic!("{source} gave {value:?}"),
    }
}

async fn unboxed(heap: &TestHeap, source: &str) -> JavaValue {
    match value(heap, source).await {
        JavaValue::Object(o) => heap.get(o, "value"),
        other => other,
    }
}

#[tokio::test]
async fn names_are_scoped_as_java_scopes_them() {
    let heap = shop();
    assert_eq!(value(&heap, "limit").await, int(10));
    assert_eq!(value(&heap, "total").await, int(42), "a field of this");
    assert_eq!(
        value(&heap, "id").await,
        JavaValue::Long(7),
        "an inherited field"
    );
    assert_eq!(
        value(&heap, "TAX").await,
        JavaValue::Double(0.2),
        "a static of the frame's class"
    );
    assert_eq!(
        value(&heap, "Config.LIMIT").await,
        int(100),
        "a static by a simple type name"
    );
    assert_eq!(value(&heap, "com.shop.Config.LIMIT").await, int(100));
    assert_eq!(value(&heap, "Cart.TAX").await, JavaValue::Double(0.2));
    assert_eq!(value(&heap, "this.total").await, int(42));
    assert_eq!(value(&heap, "line.qty").await, int(2));
    assert_eq!(text(&heap, "line.sku").await, "A1");
    assert_eq!(value(&heap, "inner.this$0.total").await, int(42));
}

#[tokio::test]
async fn an_inner_class_reads_captured_locals_and_its_enclosing_instance() {
    let heap = shop();
    let JavaValue::Object(inner) = value(&heap, "inner").await else {
        panic!("inner is an object");
    };
    heap.set_frame("com.shop.Cart$Inner");
    heap.set_this(Some(inner));
    heap.set_locals(Some(Vec::new()));
    assert_eq!(value(&heap, "limit").await, int(9), "val$limit");
    assert_eq!(value(&heap, "total").await, int(42), "this$0.total");
    assert_eq!(text(&heap, "owner").await, "ann");
    assert_eq!(
        value(&heap, "total()").await,
        int(42),
        "a method of the enclosing instance"
    );
    assert_eq!(text(&heap, "describe()").await, "#7");
}

#[tokio::test]
async fn arrays_index_and_length() {
    let heap = shop();
    assert_eq!(value(&heap, "numbers[1]").await, int(2));
    assert_eq!(value(&heap, "numbers[limit - 8]").await, int(3));
    assert_eq!(value(&heap, "numbers.length").await, int(3));
    assert_eq!(value(&heap, "numbers[(byte) 0]").await, int(1));
    assert!(matches!(
        error(&heap, "numbers[3]").await,
        ExpressionError::IndexOutOfBounds {
            index: 3,
            length: 3,
            ..
        }
    ));
    assert!(matches!(
        error(&heap, "numbers[-1]").await,
        ExpressionError::IndexOutOfBounds { index: -1, .. }
    ));
    assert_eq!(
        error(&heap, "nothing[0]").await.to_string(),
        "NullPointerException: nothing is null"
    );
    assert_eq!(
        error(&heap, "limit[0]").await.to_string(),
        "int is not an array"
    );
    assert!(matches!(
        error(&heap, "numbers[1L]").await,
        ExpressionError::CannotConvert { .. }
    ));
}

#[tokio::test]
async fn methods_on_objects_interfaces_and_types() {
    let heap = shop();
    assert_eq!(
        value(&heap, "list.size()").await,
        int(2),
        "List.size() dispatched to ArrayList"
    );
    assert_eq!(text(&heap, "list.get(1)").await, "pear");
    assert_eq!(text(&heap, "items.get(0)").await, "apple");
    assert_eq!(unboxed(&heap, "prices.get(\"apple\")").await, int(3));
    assert_eq!(value(&heap, "prices.get(\"fig\")").await, JavaValue::Null);
    assert_eq!(value(&heap, "Math.max(1, 2)").await, int(2));
    assert_eq!(
        value(&heap, "java.lang.Math.max(1, 2L)").await,
        JavaValue::Long(2)
    );
    assert_eq!(
        value(&heap, "Math.max(limit, 2.5)").await,
        JavaValue::Double(10.0)
    );
    assert_eq!(
        value(&heap, "total()").await,
        int(42),
        "an instance method of this"
    );
    assert_eq!(text(&heap, "describe()").await, "#7", "an inherited method");
    assert_eq!(
        value(&heap, "count.compareTo(4)").await,
        int(1),
        "the argument boxed"
    );
    assert_eq!(value(&heap, "line.qty()").await, int(2));
    assert_eq!(value(&heap, "\"abc\".length()").await, int(3));
    assert_eq!(
        value(&heap, "owner.charAt(0)").await,
        JavaValue::Char(u16::from(b'a'))
    );
    assert_eq!(
        value(&heap, "prices.get(\"apple\").compareTo(count)").await,
        int(-1),
        "a call on a call's result"
    );
}

#[tokio::test]
async fn overloads_are_resolved_as_java_resolves_them() {
    let heap = shop();
    for (call, picked) in [
        ("Cart.pick(1)", "int"),
        ("Cart.pick((short) 1)", "int"),
        ("Cart.pick('c')", "int"),
        ("Cart.pick(1L)", "long"),
        ("Cart.pick(\"s\")", "String"),
        ("Cart.pick(null)", "String"),
        // Phase one takes Integer as an Object before phase two would unbox it to an int.
        ("Cart.pick(count)", "Object"),
        ("Cart.pick(list)", "Object"),
        ("Cart.boxed(5)", "Integer 5"),
    ] {
        assert_eq!(text(&heap, call).await, picked, "{call}");
    }
    assert_eq!(
        error(&heap, "Cart.both(1, 2)").await.to_string(),
        "call of both in com.shop.Cart is ambiguous: both(int, java.lang.Object), \
         both(java.lang.Object, int)"
    );
    assert_eq!(
        error(&heap, "Cart.pick(1, 2)").await.to_string(),
        "no method pick(int, int) in com.shop.Cart"
    );
    assert_eq!(
        error(&heap, "list.size(1)").await.to_string(),
        "no method size(int) in java.util.ArrayList"
    );
    assert!(matches!(
        error(&heap, "Cart.total()").await,
        ExpressionError::StaticContext { .. }
    ));
}

#[tokio::test]
async fn varargs_pack_the_trailing_arguments() {
    let heap = shop();
    assert_eq!(value(&heap, "Cart.sum(1, 2, 3)").await, int(6));
    assert_eq!(value(&heap, "Cart.sum()").await, int(0));
    assert_eq!(
        value(&heap, "Cart.sum(numbers)").await,
        int(6),
        "an array passed as it is"
    );
    assert_eq!(
        text(&heap, "String.format(\"%s-%s\", limit, owner)").await,
        "10-ann",
        "primitives boxed into an Object[]"
    );
}

#[tokio::test]
async fn exceptions_and_timeouts_are_named() {
    let heap = shop();
    assert_eq!(
        error(&heap, "fail()").await,
        ExpressionError::Threw {
            type_name: "java.lang.IllegalStateException".into(),
            message: Some("cart is closed".into())
        }
    );
    assert_eq!(
        error(&heap, "list.get(5)").await.to_string(),
        "java.lang.IndexOutOfBoundsException: Index 5 out of bounds for length 2"
    );
    assert_eq!(
        error(&heap, "slow()").await,
        ExpressionError::Heap(HeapError::TimedOut)
    );
}

#[tokio::test]
async fn arithmetic_unboxes_and_promotes() {
    let heap = shop();
    assert_eq!(value(&heap, "limit + 1").await, int(11));
    assert_eq!(value(&heap, "count + 1").await, int(6), "Integer unboxed");
    assert_eq!(value(&heap, "count * ratio").await, JavaValue::Double(2.5));
    assert_eq!(value(&heap, "-limit % 3").await, int(-1));
    assert_eq!(value(&heap, "2147483647 + 1").await, int(i32::MIN));
    assert_eq!(value(&heap, "big >> 38").await, JavaValue::Long(4));
    assert_eq!(value(&heap, "letter + 1").await, int(121));
    assert_eq!(value(&heap, "small + small").await, int(2));
    assert_eq!(value(&heap, "~limit").await, int(-11));
    assert_eq!(value(&heap, "-count").await, int(-5));
    assert_eq!(
        value(&heap, "limit / 0.0").await,
        JavaValue::Double(f64::INFINITY)
    );
    assert_eq!(
        error(&heap, "limit / (count - 5)").await,
        ExpressionError::DivisionByZero { column: 7 }
    );
    assert_eq!(
        error(&heap, "flag + 1").await.to_string(),
        "bad operand types boolean and int for '+' at column 6"
    );
    assert_eq!(
        error(&heap, "!limit").await.to_string(),
        "bad operand type int for '!' at column 1"
    );
}

#[tokio::test]
async fn casts() {
    let heap = shop();
    assert_eq!(value(&heap, "(int) 3.9").await, int(3));
    assert_eq!(value(&heap, "(int) ratio").await, int(0));
    assert_eq!(value(&heap, "(char) 65").await, JavaValue::Char(65));
    assert_eq!(value(&heap, "(byte) 300").await, JavaValue::Byte(44));
    assert_eq!(value(&heap, "(long) count").await, JavaValue::Long(5));
    assert_eq!(
        value(&heap, "(double) limit / 4").await,
        JavaValue::Double(2.5)
    );
    assert_eq!(value(&heap, "((java.util.List) list).size()").await, int(2));
    assert_eq!(value(&heap, "(Object) nothing").await, JavaValue::Null);
    assert_eq!(
        unboxed(&heap, "(Integer) 7").await,
        int(7),
        "a primitive boxed by a cast"
    );
    assert_eq!(
        error(&heap, "(String) list").await.to_string(),
        "cannot convert java.util.ArrayList to java.lang.String at column 1"
    );
    assert!(matches!(
        error(&heap, "(int) flag").await,
        ExpressionError::CannotConvert { .. }
    ));
}

#[tokio::test]
async fn comparisons_equality_and_logic() {
    let heap = shop();
    let yes = JavaValue::Boolean(true);
    let no = JavaValue::Boolean(false);
    assert_eq!(
        value(&heap, "count == 5").await,
        yes,
        "Integer == int unboxes"
    );
    assert_eq!(value(&heap, "count == count").await, yes);
    assert_eq!(
        value(&heap, "prices.get(\"pear\") == count").await,
        no,
        "two boxes by identity"
    );
    assert_eq!(value(&heap, "this.items == list").await, yes);
    assert_eq!(value(&heap, "nothing == null").await, yes);
    assert_eq!(value(&heap, "list != null").await, yes);
    assert_eq!(value(&heap, "limit >= 10 && ratio < 1").await, yes);
    assert_eq!(
        value(&heap, "flag || nothing.toString() == null").await,
        yes,
        "|| short-circuits"
    );
    assert_eq!(
        value(&heap, "!flag && nothing.toString() == null").await,
        no,
        "&& short-circuits"
    );
    assert_eq!(value(&heap, "flag ^ true").await, no);
    assert_eq!(value(&heap, "flag ? limit : 0").await, int(10));
    assert_eq!(
        text(&heap, "limit > 50 ? \"big\" : \"small\"").await,
        "small"
    );
    assert!(matches!(
        error(&heap, "limit && flag").await,
        ExpressionError::BadOperands { .. }
    ));
    assert!(matches!(
        error(&heap, "limit ? 1 : 2").await,
        ExpressionError::CannotConvert { .. }
    ));
}

#[tokio::test]
async fn instanceof_walks_superclasses_and_interfaces() {
    let heap = shop();
    let yes = JavaValue::Boolean(true);
    let no = JavaValue::Boolean(false);
    assert_eq!(value(&heap, "list instanceof java.util.List").await, yes);
    assert_eq!(
        value(&heap, "list instanceof java.util.Collection").await,
        yes
    );
    assert_eq!(value(&heap, "list instanceof Comparable").await, no);
    assert_eq!(value(&heap, "count instanceof Number").await, yes);
    assert_eq!(value(&heap, "this instanceof com.shop.Base").await, yes);
    assert_eq!(value(&heap, "numbers instanceof Object").await, yes);
    assert_eq!(value(&heap, "nothing instanceof Object").await, no);
    assert!(matches!(
        error(&heap, "limit instanceof Object").await,
        ExpressionError::BadOperands { .. }
    ));
    assert_eq!(
        error(&heap, "list instanceof Nope").await.to_string(),
        "unknown type 'Nope' (no loaded class has that name)"
    );
}

#[tokio::test]
async fn strings_concatenate_through_to_string() {
    let heap = shop();
    assert_eq!(text(&heap, "\"n=\" + limit").await, "n=10");
    assert_eq!(text(&heap, "\"r\" + ratio").await, "r0.5");
    assert_eq!(text(&heap, "owner + \"!\"").await, "ann!");
    assert_eq!(text(&heap, "\"x\" + nothing").await, "xnull");
    assert_eq!(text(&heap, "\"c\" + letter").await, "cx");
    assert_eq!(text(&heap, "\"\" + line").await, "Line[sku=A1, qty=2]");
    assert_eq!(text(&heap, "\"\" + count").await, "5");
    assert_eq!(text(&heap, "\"\" + list").await, "[apple, pear]");
    assert_eq!(text(&heap, "1 + 2 + \"a\"").await, "3a");
    assert_eq!(text(&heap, "\"a\" + 1 + 2").await, "a12");
    assert_eq!(text(&heap, "\"\" + 1e10").await, "1.0E10");
    assert_eq!(text(&heap, "\"tab\\there\"").await, "tab\there");
    assert!(
        text(&heap, "\"\" + this")
            .await
            .starts_with("com.shop.Cart@")
    );
}

#[tokio::test]
async fn errors_name_what_was_not_understood() {
    let heap = shop();
    assert_eq!(
        error(&heap, "totl + 1").await.to_string(),
        "unknown name 'totl' (locals: count, limit, ratio, big, flag, letter, small, numbers, \
         list, nothing, line, color, inner)"
    );
    assert!(matches!(
        error(&heap, "totl.size()").await,
        ExpressionError::UnknownName { column: 1, .. }
    ));
    assert!(matches!(
        error(&heap, "com.shop.Nope.X").await,
        ExpressionError::UnknownName { column: 1, .. }
    ));
    assert_eq!(
        error(&heap, "this.nope").await.to_string(),
        "no field 'nope' in com.shop.Cart"
    );
    assert_eq!(
        error(&heap, "Config.NOPE").await.to_string(),
        "no field 'NOPE' in com.shop.Config"
    );
    assert_eq!(
        error(&heap, "Cart").await.to_string(),
        "com.shop.Cart is a type, not a value"
    );
    assert_eq!(
        error(&heap, "nothing.toString()").await.to_string(),
        "NullPointerException: nothing is null"
    );
    assert_eq!(
        error(&heap, "list.size(").await.to_string(),
        "expected an expression at column 11, found end of input"
    );
}

#[tokio::test]
async fn a_static_frame_and_a_class_without_local_names() {
    let heap = shop();
    heap.set_this(None);
    assert_eq!(
        error(&heap, "this").await.to_string(),
        "'this' cannot be used in a static method"
    );
    assert!(matches!(
        error(&heap, "total()").await,
        ExpressionError::StaticContext { .. }
    ));
    assert_eq!(value(&heap, "TAX").await, JavaValue::Double(0.2));
    heap.set_locals(None);
    assert_eq!(
        error(&heap, "limit").await.to_string(),
        "unknown name 'limit' (the method's class was compiled without -g: it has no local \
         variable names)"
    );
}

#[tokio::test]
async fn conditions_are_booleans_or_boxes_of_them() {
    let heap = shop();
    assert_eq!(evaluate_condition(&heap, "limit > 5").await, Ok(true));
    assert_eq!(
        evaluate_condition(&heap, "list.size() == 3").await,
        Ok(false)
    );
    let truth = boxed(&heap, "java.lang.Boolean", JavaValue::Boolean(true));
    heap.set_locals(Some(vec![("ok", "java.lang.Boolean", truth)]));
    assert_eq!(evaluate_condition(&heap, "ok").await, Ok(true));
    assert_eq!(
        evaluate_condition(&heap, "total")
            .await
            .map_err(|e| e.to_string()),
        Err("cannot convert int to boolean at column 1".into())
    );
}

#[tokio::test]
async fn set_writes_locals_fields_statics_and_elements() {
    let heap = shop();
    assert_eq!(assign(&heap, "limit", "limit * 2").await, Ok(int(20)));
    assert_eq!(heap.local("limit"), Some(int(20)));
    assert_eq!(assign(&heap, "small", "5").await, Ok(JavaValue::Byte(5)));
    assert_eq!(
        assign(&heap, "ratio", "1").await,
        Ok(JavaValue::Double(1.0))
    );
    assert_eq!(assign(&heap, "total", "7").await, Ok(int(7)));
    assert_eq!(value(&heap, "this.total").await, int(7));
    assert!(assign(&heap, "this.owner", "\"bob\"").await.is_ok());
    assert_eq!(text(&heap, "owner").await, "bob");
    assert!(assign(&heap, "Config.LIMIT", "5").await.is_ok());
    assert_eq!(heap.static_value("com.shop.Config", "LIMIT"), int(5));
    assert!(assign(&heap, "TAX", "1").await.is_ok());
    assert_eq!(
        heap.static_value("com.shop.Cart", "TAX"),
        JavaValue::Double(1.0)
    );
    assert!(assign(&heap, "numbers[0]", "9").await.is_ok());
    assert_eq!(value(&heap, "numbers[0]").await, int(9));
    assert!(
        assign(&heap, "count", "6").await.is_ok(),
        "boxed into an Integer"
    );
    assert_eq!(unboxed(&heap, "count").await, int(6));
    assert!(assign(&heap, "discount", "limit").await.is_ok());
    assert_eq!(unboxed(&heap, "discount").await, int(20));
    assert!(assign(&heap, "nothing", "list").await.is_ok());
    assert!(assign(&heap, "nothing", "null").await.is_ok());
}

#[tokio::test]
async fn set_refuses_what_it_cannot_write() {
    let heap = shop();
    let failed = |result: Result<JavaValue, ExpressionError>| match result {
        Err(error) => error.to_string(),
        Ok(value) => panic!("wrote {value:?}"),
    };
    assert_eq!(
        failed(assign(&heap, "small", "300").await),
        "cannot convert int to byte at column 1"
    );
    assert_eq!(
        failed(assign(&heap, "limit", "ratio").await),
        "cannot convert double to int at column 1"
    );
    assert_eq!(
        failed(assign(&heap, "list", "count").await),
        "cannot convert java.lang.Integer to java.util.List at column 1"
    );
    assert_eq!(
        failed(assign(&heap, "owner", "3").await),
        "cannot convert int to java.lang.String at column 1"
    );
    assert!(matches!(
        assign(&heap, "numbers.length", "1").await,
        Err(ExpressionError::NotAssignable { .. })
    ));
    assert!(matches!(
        assign(&heap, "limit + 1", "2").await,
        Err(ExpressionError::NotAssignable { column: 7 })
    ));
    assert!(matches!(
        assign(&heap, "nope", "1").await,
        Err(ExpressionError::UnknownName { .. })
    ));
    assert!(matches!(
        assign(&heap, "numbers[5]", "1").await,
        Err(ExpressionError::IndexOutOfBounds { .. })
    ));
}

#[tokio::test]
async fn set_variable_writes_a_named_child() {
    let heap = shop();
    let JavaValue::Object(cart) = value(&heap, "this").await else {
        panic!("this is an object");
    };
    let JavaValue::Object(numbers) = value(&heap, "numbers").await else {
        panic!("numbers is an array");
    };
    let local = Place::Local("limit".into());
    assert_eq!(assign_place(&heap, &local, "limit + 1").await, Ok(int(11)));
    let field = Place::Field {
        object: cart,
        name: "total".into(),
    };
    assert_eq!(assign_place(&heap, &field, "3").await, Ok(int(3)));
    assert_eq!(value(&heap, "total").await, int(3));
    let inherited = Place::Field {
        object: cart,
        name: "id".into(),
    };
    assert_eq!(
        assign_place(&heap, &inherited, "8").await,
        Ok(JavaValue::Long(8))
    );
    let element = Place::Element {
        array: numbers,
        index: 2,
    };
    assert_eq!(assign_place(&heap, &element, "'a'").await, Ok(int(97)));
    assert_eq!(value(&heap, "numbers[2]").await, int(97));
    let past = Place::Element {
        array: numbers,
        index: 3,
    };
    assert!(matches!(
        assign_place(&heap, &past, "1").await,
        Err(ExpressionError::IndexOutOfBounds {
            index: 3,
            length: 3,
            ..
        })
    ));
    let missing = Place::Field {
        object: cart,
        name: "nope".into(),
    };
    assert_eq!(
        assign_place(&heap, &missing, "1")
            .await
            .map_err(|e| e.to_string()),
        Err("no field 'nope' in com.shop.Cart".into())
    );
}

/// The daemon runs a session's work on `tokio::spawn`, which needs `Send` futures: evaluating
/// over a heap whose futures are `Send` must be `Send` too.
#[test]
fn evaluation_is_send_over_a_send_heap() {
    fn assert_send<T: Send>(_: &T) {}
    let heap = shop();
    assert_send(&evaluate(&heap, "list.size() + 1"));
    assert_send(&assign(&heap, "limit", "1"));
}

/// String literals are the VM's pool's, as in Java: two equal literals are one object, and so
/// is a field set from a literal; a string made at run time is another.
#[tokio::test]
async fn string_literals_are_interned() {
    let heap = shop();
    assert_eq!(
        value(&heap, "\"a\" == \"a\"").await,
        JavaValue::Boolean(true)
    );
    assert_eq!(
        value(&heap, "\"a\" != \"b\"").await,
        JavaValue::Boolean(true)
    );
    assert_eq!(
        value(&heap, "owner == \"ann\"").await,
        JavaValue::Boolean(true)
    );
    assert_eq!(
        value(&heap, "(\"a\" + \"nn\") == \"ann\"").await,
        JavaValue::Boolean(false),
        "a concatenation at run time is a new string"
    );
}

/// A conditional of two numeric types is of their binary numeric promotion's type (JLS 15.25),
/// whichever branch is taken; one of a single type keeps it.
#[tokio::test]
async fn a_conditional_promotes_its_numeric_branches() {
    let heap = shop();
    assert_eq!(value(&heap, "true ? 1 : 2.5").await, JavaValue::Double(1.0));
    assert_eq!(
        value(&heap, "false ? 1 : 2.5").await,
        JavaValue::Double(2.5)
    );
    assert_eq!(value(&heap, "true ? 1 : 2L").await, JavaValue::Long(1));
    assert_eq!(
        value(&heap, "total > 0 ? total : 0.5f").await,
        JavaValue::Float(42.0)
    );
    assert_eq!(value(&heap, "true ? 1 : 2").await, int(1));
    assert_eq!(value(&heap, "true ? 'a' : 'b'").await, JavaValue::Char(97));
    assert_eq!(text(&heap, "true ? \"x\" : \"y\"").await, "x");
}
