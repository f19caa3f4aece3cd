//! How a frame names its class: short for the program's, in full for the JDK's.

/// The packages of the JDK's classes, whose frames keep their package in their name: that
/// is how they are told from the program's (and folded, see `runtime_frames::jvm`).
const JDK_PACKAGES: &[&str] = &["java.", "jdk.", "sun.", "com.sun."];

/// A frame's class as its name shows it: the program's binary name without its package
/// (`Cart$Line`), the JDK's in full (`java.lang.Thread`), a hidden class's
/// (`LambdaForm$MH/0x…`) without its address.
pub(super) fn frame_class(name: &str) -> String {
    let name = name.split_once("/0x").map_or(name, |(class, _)| class);
    if JDK_PACKAGES.iter().any(|p| name.starts_with(p)) {
        return name.to_string();
    }
    name.rsplit('.').next().unwrap_or(name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_name_their_class_without_its_package() {
        assert_eq!(frame_class("com.shop.Cart$Line"), "Cart$Line");
        assert_eq!(
            frame_class("java.lang.invoke.LambdaForm$MH/0x000000003b06c000"),
            "java.lang.invoke.LambdaForm$MH"
        );
        assert_eq!(
            frame_class("Main$$Lambda/0x000000003b06c000"),
            "Main$$Lambda"
        );
        assert_eq!(frame_class("Main"), "Main");
    }
}
