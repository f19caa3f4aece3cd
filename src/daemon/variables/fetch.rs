//! Fetching a value's children from the adapter: a page at a time, and when the adapter does not
//! say how many there are, their count found by probing single indices.

use crate::dap::requests::{Variables, VariablesArguments};
use crate::dap::types::Variable;
use crate::dap::{DapClient, DapError};

async fn children_page(
    dap: &DapClient,
    reference: i64,
    page: Option<(u64, u64)>,
) -> Result<Vec<Variable>, DapError> {
    let arguments = VariablesArguments {
        variables_reference: reference,
        start: page.map(|(start, _)| start),
        count: page.map(|(_, count)| count),
    };
    Ok(dap.request_typed::<Variables>(&arguments).await?.variables)
}

/// Fetches at most about `max` children and says how many there are in all.
///
/// When the adapter gave no count (lldb-dap's `evaluate` answers, for one), asking for everything
/// could mean a million children; so we ask for one page, and if it is full, find the count by
/// probing single indices (a doubling, then a bisection: some forty one-child requests at most).
pub(in crate::daemon) async fn fetch_children(
    dap: &DapClient,
    reference: i64,
    known: Option<u64>,
    max: u64,
) -> Result<(Vec<Variable>, u64), DapError> {
    if let Some(total) = known {
        let page = (total > max).then_some((0, max));
        let children = children_page(dap, reference, page).await?;
        let returned = children.len() as u64;
        return Ok((children, total.max(returned)));
    }
    let children = children_page(dap, reference, Some((0, max + 1))).await?;
    let returned = children.len() as u64;
    if returned != max + 1 {
        // Fewer: that is all of them. More: the adapter ignores paging and sent all of them.
        return Ok((children, returned));
    }
    // Exactly a page: an adapter that ignores paging (debugpy) may have sent all it has, and
    // would answer every probe of one index with all of them again.
    let one = children_page(dap, reference, Some((max, 1))).await;
    if one.is_ok_and(|c| c.len() > 1) {
        return Ok((children, returned));
    }
    let total = count_children(dap, reference, max).await;
    Ok((children, total))
}

/// The number of children, given that index `present` exists.
async fn count_children(dap: &DapClient, reference: i64, present: u64) -> u64 {
    let exists = |index: u64| async move {
        children_page(dap, reference, Some((index, 1)))
            .await
            .is_ok_and(|c| !c.is_empty())
    };
    let mut low = present; // known to exist
    let mut high = present.saturating_mul(2).max(1); // to be tested
    let mut probes = 0;
    while probes < 40 && exists(high).await {
        low = high;
        high = high.saturating_mul(2);
        probes += 1;
    }
    // Children exist up to `low`; `high` is past the end (or the probe budget ran out).
    while probes < 80 && high - low > 1 {
        let mid = low + (high - low) / 2;
        if exists(mid).await {
            low = mid;
        } else {
            high = mid;
        }
        probes += 1;
    }
    low + 1
}
