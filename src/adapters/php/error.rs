//! A DBGp failure as the reason a request is refused.

use crate::adapters::dap_server::RequestError;

use super::dbgp::DbgpError;

impl From<DbgpError> for RequestError {
    fn from(error: DbgpError) -> RequestError {
        match error {
            DbgpError::Closed => RequestError::NotRunning,
            other => RequestError::Failed(other.to_string()),
        }
    }
}
