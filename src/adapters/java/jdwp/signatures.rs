//! JNI type signatures (`Lcom/shop/Cart$Line;`, `[I`) and the names Java writes for them
//! (`com.shop.Cart$Line`, `int[]`), both ways.

/// The Java name of the type a signature names: `I` is `int`, `[Ljava/lang/String;` is
/// `java.lang.String[]`.
pub fn type_name(signature: &str) -> String {
    let dimensions = signature.bytes().take_while(|&b| b == b'[').count();
    let element = &signature[dimensions..];
    let base = match element {
        "Z" => "boolean".to_string(),
        "B" => "byte".to_string(),
        "C" => "char".to_string(),
        "S" => "short".to_string(),
        "I" => "int".to_string(),
        "J" => "long".to_string(),
        "F" => "float".to_string(),
        "D" => "double".to_string(),
        "V" => "void".to_string(),
        other => other
            .strip_prefix('L')
            .and_then(|s| s.strip_suffix(';'))
            .unwrap_or(other)
            .replace('/', "."),
    };
    format!("{base}{}", "[]".repeat(dimensions))
}

/// The signature of a type named as Java writes it (`int[]`, `com.shop.Cart$Line`).
pub fn signature_of(name: &str) -> String {
    let mut base = name.trim();
    let mut dimensions = 0;
    while let Some(inner) = base.strip_suffix("[]") {
        base = inner.trim_end();
        dimensions += 1;
    }
    let element = match base {
        "boolean" => "Z".to_string(),
        "byte" => "B".to_string(),
        "char" => "C".to_string(),
        "short" => "S".to_string(),
        "int" => "I".to_string(),
        "long" => "J".to_string(),
        "float" => "F".to_string(),
        "double" => "D".to_string(),
        "void" => "V".to_string(),
        class => format!("L{};", class.replace('.', "/")),
    };
    format!("{}{element}", "[".repeat(dimensions))
}

/// A method signature's parameter and return types, as Java names:
/// `(ILjava/lang/String;)[J` is `(["int", "java.lang.String"], "long[]")`.
pub fn method_types(signature: &str) -> (Vec<String>, String) {
    let Some(rest) = signature.strip_prefix('(') else {
        return (Vec::new(), type_name(signature));
    };
    let Some((parameters, returns)) = rest.split_once(')') else {
        return (Vec::new(), String::new());
    };
    let mut names = Vec::new();
    let bytes = parameters.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        while at < bytes.len() && bytes[at] == b'[' {
            at += 1;
        }
        if at < bytes.len() && bytes[at] == b'L' {
            while at < bytes.len() && bytes[at] != b';' {
                at += 1;
            }
        }
        at += 1;
        names.push(type_name(&parameters[start..at.min(bytes.len())]));
    }
    (names, type_name(returns))
}

/// The simple name of a binary class name: `com.shop.Cart$Line` is `Line`, `int[]` stays.
pub fn simple_name(name: &str) -> &str {
    let after_package = name.rsplit('.').next().unwrap_or(name);
    after_package.rsplit('$').next().unwrap_or(after_package)
}

/// A class's package as a folder path: `Lcom/shop/Cart$1;` is `com/shop`.
pub fn package_folder(signature: &str) -> &str {
    let inner = signature
        .strip_prefix('L')
        .and_then(|s| s.strip_suffix(';'))
        .unwrap_or(signature);
    inner.rsplit_once('/').map_or("", |(package, _)| package)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_and_java_names_convert_both_ways() {
        for (signature, name) in [
            ("I", "int"),
            ("[[D", "double[][]"),
            ("Ljava/lang/String;", "java.lang.String"),
            ("[Lcom/shop/Cart$Line;", "com.shop.Cart$Line[]"),
        ] {
            assert_eq!(type_name(signature), name);
            assert_eq!(signature_of(name), signature);
        }
    }

    #[test]
    fn a_method_signature_gives_its_parameters_and_return() {
        assert_eq!(
            method_types("(ILjava/lang/String;[J)V"),
            (
                vec!["int".into(), "java.lang.String".into(), "long[]".into()],
                "void".into()
            )
        );
        assert_eq!(method_types("()[I"), (Vec::new(), "int[]".into()));
    }

    #[test]
    fn simple_names_and_package_folders() {
        assert_eq!(simple_name("com.shop.Cart$Line"), "Line");
        assert_eq!(simple_name("Main"), "Main");
        assert_eq!(package_folder("Lcom/shop/Cart$1;"), "com/shop");
        assert_eq!(package_folder("LMain;"), "");
    }
}
