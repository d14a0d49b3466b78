//! Numbered work items done on several threads, their results handed on in item order: the
//! shape of every long run here (self-play games, relabelling), whose output must not depend on
//! the number of threads.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;

/// Does items `0..items` on `threads` threads and passes each result to `sink` in item order.
///
/// Each thread makes its own state with `state` (an engine, say) and takes the next item with
/// `work`; a result that is ready early waits until those before it have been passed on. `stop`
/// ends the run after the items in progress (the results before the first missing one are all
/// passed on). The first error from `sink` ends the run and is returned.
pub fn in_order<S, T, E>(
    items: usize,
    threads: usize,
    stop: &AtomicBool,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> T + Sync,
    sink: &mut dyn FnMut(usize, T) -> Result<(), E>,
) -> Result<(), E>
where
    T: Send,
{
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (tx, rx) = channel::<(usize, T)>();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, failed, state, work) = (&next, &failed, &state, &work);
            s.spawn(move || {
                let mut mine = state();
                while !stop.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items {
                        break;
                    }
                    if tx.send((i, work(&mut mine, i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut want = 0;
        for (i, result) in rx {
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&want) {
                if let Err(e) = sink(want, result) {
                    failed.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                want += 1;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_item_order_whatever_the_threads() {
        for threads in [1, 2, 5] {
            let stop = AtomicBool::new(false);
            let mut seen = Vec::new();
            in_order(
                40,
                threads,
                &stop,
                || 0u64,
                |done, i| {
                    // Uneven work, so later items often finish first.
                    std::thread::sleep(std::time::Duration::from_micros(
                        ((i * 7919) % 13) as u64 * 50,
                    ));
                    *done += 1;
                    i * i
                },
                &mut |i, sq| -> Result<(), ()> {
                    seen.push((i, sq));
                    Ok(())
                },
            )
            .unwrap();
            let want: Vec<_> = (0..40).map(|i| (i, i * i)).collect();
            assert_eq!(seen, want, "{threads} threads");
        }
    }

    #[test]
    fn an_error_from_the_sink_ends_the_run_and_is_returned() {
        let stop = AtomicBool::new(false);
        let mut passed = 0;
        let r = in_order(1000, 2, &stop, || (), |_, i| i, &mut |i, _| {
            if i == 3 {
                return Err(format!("item {i}"));
            }
            passed += 1;
            Ok(())
        });
        assert_eq!(r, Err("item 3".to_string()));
        assert_eq!(passed, 3);
    }

    #[test]
    fn a_stop_ends_the_run_with_a_gapless_prefix() {
        // Items past 20 wait for the stop, so the run cannot finish before the sink raises it
        // at item 10, however fast the workers are; each worker ends after its item in progress.
        let stop = AtomicBool::new(false);
        let mut seen = Vec::new();
        let mut sink = |i: usize, _: usize| -> Result<(), ()> {
            seen.push(i);
            if i == 10 {
                stop.store(true, Ordering::Relaxed);
            }
            Ok(())
        };
        let work = |_: &mut (), i: usize| {
            while i > 20 && !stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            i
        };
        in_order(100_000, 2, &stop, || (), work, &mut sink).unwrap();
        assert!(
            (11..=23).contains(&seen.len()),
            "stopped after item 10, with at most one item per worker in progress past 20: {}",
            seen.len()
        );
        assert!(seen.iter().enumerate().all(|(k, &i)| k == i), "no gaps");
    }
}
