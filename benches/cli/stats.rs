//! Samples into figures: the median and p90 of a series of timings, and the warm-up-then-measure
//! loop that collects a series. Medians rather than means, because one call delayed by other
//! work on a shared 2-core machine would move a mean and say nothing about the code.

use std::time::Duration;

use crate::BenchResult;

#[derive(Clone)]
pub struct Stats {
    pub runs: usize,
    pub median: Duration,
    pub p90: Duration,
}

impl Stats {
    pub fn of(mut samples: Vec<Duration>) -> Stats {
        samples.sort();
        let n = samples.len();
        if n == 0 {
            return Stats {
                runs: 0,
                median: Duration::ZERO,
                p90: Duration::ZERO,
            };
        }
        let median = if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2
        };
        // Nearest rank: the smallest sample with at least 90% of samples at or below it.
        let rank = (n * 9).div_ceil(10).max(1);
        Stats {
            runs: n,
            median,
            p90: samples[rank - 1],
        }
    }

    pub fn median_ratio(&self, base: &Stats) -> f64 {
        self.median.as_secs_f64() / base.median.as_secs_f64()
    }
}

/// `warmup` untimed runs, then `runs` timed ones.
pub fn time_n(
    runs: usize,
    warmup: usize,
    mut once: impl FnMut() -> BenchResult<Duration>,
) -> BenchResult<Vec<Duration>> {
    for _ in 0..warmup {
        once()?;
    }
    (0..runs).map(|_| once()).collect()
}
