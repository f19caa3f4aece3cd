//! Our DBGp client: the wire (`wire`), the XML it carries (`xml`), and one script's connection
//! (`connection`).

pub mod connection;
pub mod wire;
pub mod xml;

pub use connection::{Connection, DbgpError};
pub use xml::Element;
