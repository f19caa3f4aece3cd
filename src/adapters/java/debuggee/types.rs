//! What the adapter has learnt of the JVM's loaded types, kept for the session: a type's
//! signature, source file, methods and their line tables do not change once it is loaded.

use std::collections::HashMap;
use std::sync::Arc;

use crate::adapters::java::jdwp::commands::{LineTable, Method};
use crate::adapters::java::jdwp::wire::Location;
use crate::adapters::java::jdwp::{Connection, JdwpError};

#[derive(Default)]
pub struct Types {
    signatures: HashMap<u64, String>,
    /// `None`: the class file has no SourceFile attribute (a hidden class, a lambda's).
    source_files: HashMap<u64, Option<String>>,
    methods: HashMap<u64, Arc<Vec<Method>>>,
    line_tables: HashMap<(u64, u64), Arc<LineTable>>,
    /// The last line of a class's own file, where a source map says where lines inlined from
    /// elsewhere begin (see `smap`).
    own_lines: HashMap<u64, Option<u32>>,
}

impl Types {
    pub async fn signature(&mut self, jvm: &Connection, type_id: u64) -> Result<String, JdwpError> {
        if let Some(signature) = self.signatures.get(&type_id) {
            return Ok(signature.clone());
        }
        let signature = jvm.signature(type_id).await?;
        self.signatures.insert(type_id, signature.clone());
        Ok(signature)
    }

    /// Learns a type's signature from an event or a listing that carried it.
    pub fn know_signature(&mut self, type_id: u64, signature: &str) {
        self.signatures
            .entry(type_id)
            .or_insert_with(|| signature.to_string());
    }

    pub async fn source_file(
        &mut self,
        jvm: &Connection,
        type_id: u64,
    ) -> Result<Option<String>, JdwpError> {
        if let Some(file) = self.source_files.get(&type_id) {
            return Ok(file.clone());
        }
        let file = match jvm.source_file(type_id).await {
            Ok(file) => Some(file),
            Err(e) if e.is_absent_information() => None,
            Err(e) => return Err(e),
        };
        self.source_files.insert(type_id, file.clone());
        Ok(file)
    }

    /// The last line that is the class's own file's, not a line of a function inlined into
    /// it; `None` when every line is (a class without a source map).
    pub async fn last_own_line(
        &mut self,
        jvm: &Connection,
        type_id: u64,
    ) -> Result<Option<u32>, JdwpError> {
        if let Some(last) = self.own_lines.get(&type_id) {
            return Ok(*last);
        }
        let last = match jvm.source_debug_extension(type_id).await {
            Ok(smap) => super::smap::last_own_line(&smap),
            Err(JdwpError::Jvm(_)) => None,
            Err(e) => return Err(e),
        };
        self.own_lines.insert(type_id, last);
        Ok(last)
    }

    pub async fn methods(
        &mut self,
        jvm: &Connection,
        type_id: u64,
    ) -> Result<Arc<Vec<Method>>, JdwpError> {
        if let Some(methods) = self.methods.get(&type_id) {
            return Ok(methods.clone());
        }
        let methods = Arc::new(jvm.methods(type_id).await?);
        self.methods.insert(type_id, methods.clone());
        Ok(methods)
    }

    pub async fn method(
        &mut self,
        jvm: &Connection,
        type_id: u64,
        method: u64,
    ) -> Result<Option<Method>, JdwpError> {
        Ok(self
            .methods(jvm, type_id)
            .await?
            .iter()
            .find(|m| m.id == method)
            .cloned())
    }

    /// A method's line table; empty for one without code or line numbers (native, abstract).
    pub async fn line_table(
        &mut self,
        jvm: &Connection,
        type_id: u64,
        method: u64,
    ) -> Result<Arc<LineTable>, JdwpError> {
        if let Some(table) = self.line_tables.get(&(type_id, method)) {
            return Ok(table.clone());
        }
        let table = match jvm.line_table(type_id, method).await {
            Ok(table) => Arc::new(table),
            Err(JdwpError::Jvm(_)) => Arc::new(LineTable::default()),
            Err(e) => return Err(e),
        };
        self.line_tables.insert((type_id, method), table.clone());
        Ok(table)
    }

    /// The source line of a location, when its method has line numbers.
    pub async fn line_of(
        &mut self,
        jvm: &Connection,
        location: &Location,
    ) -> Result<Option<u32>, JdwpError> {
        Ok(self
            .line_table(jvm, location.class, location.method)
            .await?
            .line_at(location.index))
    }
}
