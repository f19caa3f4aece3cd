//! The XML Xdebug answers in, read into a small tree: DBGp's documents are short (one response,
//! a stack, a page of properties), so the whole is read at once and walked by name.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// One element: its local name (`message` for `xdebug:message`), attributes, text and children.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    /// Its own text and CDATA, entities resolved.
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The element's text, decoded when Xdebug sent it as base64 (`encoding="base64"`).
    pub fn value(&self) -> String {
        if self.attr("encoding") == Some("base64") {
            let bytes = crate::dap::base64::decode(self.text.trim()).unwrap_or_default();
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        self.text.clone()
    }
}

/// Reads a document into its root element.
pub fn parse(text: &str) -> Result<Element, String> {
    let mut reader = Reader::from_str(text);
    let mut open: Vec<Element> = Vec::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("unreadable XML from Xdebug: {e}"))?;
        match event {
            Event::Start(start) => open.push(element(&start)?),
            Event::Empty(start) => {
                let done = element(&start)?;
                match open.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => return Ok(done),
                }
            }
            Event::End(_) => {
                let Some(done) = open.pop() else {
                    return Err("unbalanced XML from Xdebug".into());
                };
                match open.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => return Ok(done),
                }
            }
            Event::Text(text) => {
                if let Some(current) = open.last_mut() {
                    current.text.push_str(&text.xml10_content());
                }
            }
            Event::CData(data) => {
                if let Some(current) = open.last_mut() {
                    current.text.push_str(&data.into_inner());
                }
            }
            Event::GeneralRef(reference) => {
                if let Some(current) = open.last_mut() {
                    if let Ok(Some(c)) = reference.resolve_char_ref() {
                        current.text.push(c);
                    } else if let Some(resolved) =
                        resolve_predefined_entity(&reference.xml10_content())
                    {
                        current.text.push_str(resolved);
                    }
                }
            }
            Event::Eof => return Err("an XML document from Xdebug ended early".into()),
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
}

fn element(start: &BytesStart<'_>) -> Result<Element, String> {
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| format!("unreadable XML from Xdebug: {e}"))?;
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("unreadable XML from Xdebug: {e}"))?;
        attributes.push((
            attribute.key.local_name().as_ref().to_string(),
            value.into_owned(),
        ));
    }
    Ok(Element {
        name: start.local_name().as_ref().to_string(),
        attributes,
        ..Element::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_read_with_its_message_and_values() {
        let root = parse(
            r#"<?xml version="1.0" encoding="iso-8859-1"?>
<response xmlns="urn:debugger_protocol_v1" xmlns:xdebug="https://xdebug.org/dbgp/xdebug" command="run" transaction_id="7" status="break" reason="ok"><xdebug:message filename="file:///p/a&amp;b.php" lineno="5"><![CDATA[boom]]></xdebug:message><property name="$s" encoding="base64"><![CDATA[aMOpbGxv]]></property><property name="$t">a &lt; b</property></response>"#,
        )
        .expect("parsed");
        assert_eq!(root.name, "response");
        assert_eq!(root.attr("status"), Some("break"));
        let message = root.child("message").expect("message");
        assert_eq!(message.attr("filename"), Some("file:///p/a&b.php"));
        assert_eq!(message.text, "boom");
        let values: Vec<String> = root
            .children_named("property")
            .map(Element::value)
            .collect();
        assert_eq!(values, ["héllo", "a < b"]);
    }
}
