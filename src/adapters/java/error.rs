//! A JDWP failure as the reason a request is refused.

use crate::adapters::dap_server::RequestError;

use super::jdwp::JdwpError;

impl From<JdwpError> for RequestError {
    fn from(error: JdwpError) -> RequestError {
        match error {
            JdwpError::Closed => RequestError::NotRunning,
            other => RequestError::Failed(other.to_string()),
        }
    }
}
