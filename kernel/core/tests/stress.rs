//! Concurrency: four threads submit to four queues; each stage of a
//! four-stage pipeline depends on the previous stage through timeline
//! syncobjs. Everything must complete in dependency order with correct
//! values within a bounded time.

mod common;
use common::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

const STAGES: u64 = 4;
const ROUNDS: u64 = 48;

#[test]
fn pipelined_queues_complete_in_dependency_order() {
    let env = Arc::new(Env::new());
    let rig = env.rig();
    let queues: Vec<u32> = (0..STAGES).map(|_| env.queue(&rig.file, rig.vm)).collect();
    let timelines: Vec<u32> = (0..STAGES).map(|_| env.syncobj(&rig.file)).collect();
    // Programs and streams for every (stage, round), 0x100 apart.
    let mut bufs = Vec::new();
    for t in 0..STAGES {
        for k in 0..ROUNDS {
            let slot = t * ROUNDS + k;
            let dst = DATA_VA + t * 0x1000 + 4 * k;
            let prog = if t == 0 {
                // Random-ish delays shuffle the timing between queues.
                program(OP_SLEEP_STORE, dst, 1000 * k, k % 3)
            } else {
                program(OP_ADD_ONE, dst, dst - 0x1000, 0)
            };
            env.write_bo(&rig.file, rig.usc, slot * 0x100, &prog);
            let mut stream = launch(USC_VA + slot * 0x100, [1, 1, 1], [1, 1, 1]);
            stream.extend(terminate());
            env.write_bo(&rig.file, rig.cmds, slot * 0x100, &stream);
            let base = CMD_VA + slot * 0x100;
            bufs.push(compute_cmdbuf(base, base + stream.len() as u64));
        }
    }
    let bufs = Arc::new(bufs);
    let start = Instant::now();
    let threads: Vec<_> = (0..STAGES)
        .map(|t| {
            let (env, bufs, file) = (env.clone(), bufs.clone(), rig.file.clone());
            let (queues, tls) = (queues.clone(), timelines.clone());
            std::thread::spawn(move || {
                // Later stages start first, so their jobs really wait.
                std::thread::sleep(Duration::from_millis(5 * (STAGES - t)));
                for k in 0..ROUNDS {
                    let buf = &bufs[(t * ROUNDS + k) as usize];
                    let ins = if t == 0 {
                        vec![]
                    } else {
                        vec![timeline(tls[t as usize - 1], k + 1)]
                    };
                    let outs = [timeline(tls[t as usize], k + 1)];
                    // The previous stage may not have submitted point k+1
                    // yet: like a real driver, retry until the point exists.
                    loop {
                        match env.submit(&file, queues[t as usize], buf, &ins, &outs) {
                            Ok(_) => break,
                            Err(agx16_kernel::Errno::EINVAL) => {
                                std::thread::sleep(Duration::from_micros(200))
                            }
                            Err(e) => panic!("submit failed: {e}"),
                        }
                    }
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    let last = timelines[STAGES as usize - 1];
    env.wait(&rig.file, last, ROUNDS, Duration::from_secs(60))
        .unwrap();
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(60));
    for t in 0..STAGES {
        let got = words(&env.read_bo(&rig.file, rig.data, t * 0x1000, 4 * ROUNDS as usize));
        let want: Vec<u32> = (0..ROUNDS).map(|k| (1000 * k + t) as u32).collect();
        assert_eq!(got, want, "stage {t}");
    }
    let st = env.dev.stats();
    let done = st.jobs_completed.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(done, STAGES * ROUNDS);
    println!("stress: {} jobs on {STAGES} queues in {elapsed:?}", done);
}
