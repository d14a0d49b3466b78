//! Fitting the evaluation's network ([`crate::engine::eval::Net`]) to training records, on top of
//! fixed pattern weights: the model's score for the player is the patterns' score (computed once
//! per record) plus the network's output, and training minimises the same cross-entropy as
//! [`crate::learn::train`] (`sigmoid(score / K)` against the blend of result and search score),
//! with Adam over mini-batches and a penalty on the network's output (`l2 / 2 * (out / 100)^2` per
//! position). The network starts with its output weights at zero, so the starting loss is the
//! patterns' own.
//!
//! A run is deterministic for its seed: each batch is cut into a fixed number of chunks whose
//! gradients are added in order, whatever the number of threads.

use crate::engine::eval::{
    net_inputs, view_inputs, Evaluator, FloatNet, LearnedWeights, Weights, HIDDEN,
};
use crate::learn::data::Record;
use crate::learn::train::{
    cross_entropy, for_chunks, lambda_at, parallel_mean, player_target, sigmoid, split, Adam,
    EpochReport, TrainConfig, CHUNKS,
};
use crate::rng::Rng;
use crate::rules::geometry::{BoardSize, Geometry};
use crate::rules::position::{Position, Side};

/// A record ready for the network: its inputs, the patterns' score and the target, both for the
/// player.
struct Sample {
    /// Where the player's view's inputs start in [`Samples::inputs`]; the bot's follow.
    start: u32,
    player_len: u8,
    bot_len: u8,
    player_to_move: bool,
    /// The opening's share of the phase blend (pieces on the board over pieces at the start).
    phase: f32,
    base: f32,
    target: f32,
}

struct Samples {
    inputs: Vec<u16>,
    samples: Vec<Sample>,
}

impl Samples {
    fn views(&self, s: &Sample) -> (&[u16], &[u16]) {
        let a = s.start as usize;
        let b = a + usize::from(s.player_len);
        (
            &self.inputs[a..b],
            &self.inputs[b..b + usize::from(s.bot_len)],
        )
    }
}

fn push_view<G: Geometry>(pos: &Position<G>, side: Side, out: &mut Vec<u16>) -> u8 {
    let before = out.len();
    view_inputs(pos, side, |i| out.push(i as u16));
    (out.len() - before) as u8
}

fn extract_sized<G: Geometry>(
    records: &[Record],
    patterns: &LearnedWeights,
    k: f32,
    (lambda, score_only): (f32, usize),
) -> Samples {
    let ev = Evaluator::<G>::with_tiling(Weights::default(), patterns.tiling);
    let mut inputs = Vec::with_capacity(records.len() * 40);
    let mut samples = Vec::with_capacity(records.len());
    for (index, r) in records.iter().enumerate() {
        let pos: Position<G> = r.grid.to_position::<G>(r.side);
        let start = inputs.len() as u32;
        let player_len = push_view(&pos, Side::Player, &mut inputs);
        let bot_len = push_view(&pos, Side::Bot, &mut inputs);
        let (p, full) = ev.phase(&pos);
        samples.push(Sample {
            start,
            player_len,
            bot_len,
            player_to_move: r.side == Side::Player,
            phase: p.min(full) as f32 / full as f32,
            base: ev.learned_for_player(patterns, &pos) as f32,
            target: player_target(r, k, lambda_at(index, score_only, lambda)),
        });
    }
    Samples { inputs, samples }
}

fn extract(
    size: BoardSize,
    records: &[Record],
    patterns: &LearnedWeights,
    k: f32,
    target: (f32, usize),
) -> Samples {
    use crate::rules::geometry::{G10, G12, G4, G6, G8};
    match size {
        BoardSize::S4 => extract_sized::<G4>(records, patterns, k, target),
        BoardSize::S6 => extract_sized::<G6>(records, patterns, k, target),
        BoardSize::S8 => extract_sized::<G8>(records, patterns, k, target),
        BoardSize::S10 => extract_sized::<G10>(records, patterns, k, target),
        BoardSize::S12 => extract_sized::<G12>(records, patterns, k, target),
    }
}

/// Parameter layout in one flat vector: first-layer weights, biases, output weights, bias and,
/// for a phased network, the endgame output weights and bias.
struct Layout {
    inputs: usize,
    phased: bool,
}

impl Layout {
    fn b(&self) -> usize {
        self.inputs * HIDDEN
    }
    fn v(&self) -> usize {
        self.b() + HIDDEN
    }
    fn c(&self) -> usize {
        self.v() + 2 * HIDDEN
    }
    fn ve(&self) -> usize {
        self.c() + 1
    }
    fn ce(&self) -> usize {
        self.ve() + 2 * HIDDEN
    }
    fn len(&self) -> usize {
        if self.phased {
            self.ce() + 1
        } else {
            self.c() + 1
        }
    }
    /// The opening and endgame output layers' shares for a sample.
    fn shares(&self, s: &Sample) -> (f32, f32) {
        if self.phased {
            (s.phase, 1.0 - s.phase)
        } else {
            (1.0, 0.0)
        }
    }
    /// `f`'s parameters in this layout. A network with one output layer laid out phased starts
    /// with it in both phases, so it scores every position as before.
    fn flatten(&self, f: &FloatNet) -> Vec<f32> {
        let mut p = vec![0f32; self.len()];
        p[..self.b()].copy_from_slice(&f.w);
        p[self.b()..self.v()].copy_from_slice(&f.b);
        p[self.v()..self.c()].copy_from_slice(&f.v);
        p[self.c()] = f.c;
        if self.phased {
            let (ve, ce) = f.end.clone().unwrap_or_else(|| (f.v.clone(), f.c));
            p[self.ve()..self.ce()].copy_from_slice(&ve);
            p[self.ce()] = ce;
        }
        p
    }
    /// The network whose parameters in this layout are `p`.
    fn unflatten(&self, p: &[f32]) -> FloatNet {
        FloatNet {
            inputs: self.inputs,
            w: p[..self.b()].to_vec(),
            b: p[self.b()..self.v()].to_vec(),
            v: p[self.v()..self.c()].to_vec(),
            c: p[self.c()],
            end: self
                .phased
                .then(|| (p[self.ve()..self.ce()].to_vec(), p[self.ce()])),
        }
    }
}

/// The hidden sums of one view.
fn hidden(p: &[f32], l: &Layout, inputs: &[u16]) -> [f32; HIDDEN] {
    let mut acc = [0f32; HIDDEN];
    acc.copy_from_slice(&p[l.b()..l.b() + HIDDEN]);
    for &i in inputs {
        let row = &p[usize::from(i) * HIDDEN..(usize::from(i) + 1) * HIDDEN];
        for (a, &w) in acc.iter_mut().zip(row) {
            *a += w;
        }
    }
    acc
}

/// The network's output for the side to move and the two views' sums (to move, other).
fn forward(p: &[f32], l: &Layout, data: &Samples, s: &Sample) -> (f32, [[f32; HIDDEN]; 2]) {
    let (pv, bv) = data.views(s);
    let (hp, hb) = (hidden(p, l, pv), hidden(p, l, bv));
    let accs = if s.player_to_move { [hp, hb] } else { [hb, hp] };
    let layer = |at: usize, bias: f32| {
        let v = &p[at..at + 2 * HIDDEN];
        let mut out = bias;
        for (j, (&a, &b)) in accs[0].iter().zip(&accs[1]).enumerate() {
            out += v[j] * a.clamp(0.0, 1.0) + v[HIDDEN + j] * b.clamp(0.0, 1.0);
        }
        out
    };
    let open = layer(l.v(), p[l.c()]);
    let out = if l.phased {
        let (t, u) = l.shares(s);
        t * open + u * layer(l.ve(), p[l.ce()])
    } else {
        open
    };
    (out, accs)
}

fn player_score(p: &[f32], l: &Layout, data: &Samples, s: &Sample) -> f32 {
    let (out, _) = forward(p, l, data, s);
    s.base + if s.player_to_move { out } else { -out }
}

/// Adds the loss's gradient for one sample to `g`; returns its loss.
#[allow(clippy::too_many_arguments)]
fn backward(
    p: &[f32],
    l: &Layout,
    data: &Samples,
    s: &Sample,
    k: f32,
    anchor: f32,
    g: &mut [f32],
) -> f64 {
    let (out, accs) = forward(p, l, data, s);
    let score = s.base + if s.player_to_move { out } else { -out };
    let prob = sigmoid(score / k);
    let d = (prob - s.target) / k;
    // The penalty on the output, `anchor / 2 * (out / 100)^2`, keeps the network's corrections
    // to the patterns small where the data does not ask for them.
    let d_out = if s.player_to_move { d } else { -d } + anchor * out / 10_000.0;
    let (pv, bv) = data.views(s);
    let views = if s.player_to_move { [pv, bv] } else { [bv, pv] };
    // Each output layer gets its share of the gradient; a hidden unit gets both layers'.
    let (t, u) = l.shares(s);
    let (d_open, d_end) = (d_out * t, d_out * u);
    g[l.c()] += d_open;
    if l.phased {
        g[l.ce()] += d_end;
    }
    for (view, (acc, inputs)) in accs.iter().zip(views).enumerate() {
        let mut dh = [0f32; HIDDEN];
        for j in 0..HIDDEN {
            let vj = l.v() + view * HIDDEN + j;
            let a = acc[j].clamp(0.0, 1.0);
            g[vj] += d_open * a;
            let mut back = d_open * p[vj];
            if l.phased {
                let ej = l.ve() + view * HIDDEN + j;
                g[ej] += d_end * a;
                back += d_end * p[ej];
            }
            if acc[j] > 0.0 && acc[j] < 1.0 {
                dh[j] = back;
            }
        }
        for (gb, &x) in g[l.b()..l.b() + HIDDEN].iter_mut().zip(&dh) {
            *gb += x;
        }
        for &i in inputs {
            let row = &mut g[usize::from(i) * HIDDEN..(usize::from(i) + 1) * HIDDEN];
            for (gw, &x) in row.iter_mut().zip(&dh) {
                *gw += x;
            }
        }
    }
    cross_entropy(s.target, prob)
}

fn mean_loss(p: &[f32], l: &Layout, data: &Samples, idx: &[usize], k: f32, threads: usize) -> f64 {
    parallel_mean(idx, threads, |j| {
        let s = &data.samples[j];
        cross_entropy(s.target, sigmoid(player_score(p, l, data, s) / k))
    })
}

/// What the trained network does to the held-out positions' scores, in hundredths of a man.
#[derive(Clone, Copy, Debug)]
pub struct NetReport {
    /// The mean size of its output.
    pub mean_output: f64,
    /// The largest.
    pub max_output: f32,
}

/// Trains a network on top of `patterns` (kept as they are) on `records`, from `start` if given
/// (else small random first-layer weights and zero output weights), reporting each epoch. `cfg.lr`
/// is the first layer's step in units of activation; the output layer's is 100 times that, in
/// hundredths of a man. `cfg.l2` is a penalty on the network's output, `l2 / 2 * (out / 100)^2`
/// per position: it keeps the network's corrections small where the data does not ask for them.
/// Returns the weights (`patterns` with the network), the network in floats, and what it does
/// to the held-out scores.
pub fn train_net(
    size: BoardSize,
    records: &[Record],
    patterns: &LearnedWeights,
    start: Option<&FloatNet>,
    cfg: &TrainConfig,
    on_epoch: &mut dyn FnMut(&EpochReport),
) -> (LearnedWeights, FloatNet, NetReport) {
    let k = cfg.k.unwrap_or(patterns.k);
    let mut bare = patterns.clone();
    bare.net = None;
    let data = extract(size, records, &bare, k, (cfg.lambda, cfg.score_only));
    let start = start.filter(|f| f.inputs == net_inputs(size));
    let l = Layout {
        inputs: net_inputs(size),
        phased: cfg.phased || start.is_some_and(|f| f.end.is_some()),
    };
    let mut rng = Rng::new(cfg.seed);
    let mut p = match start {
        Some(f) => l.flatten(f),
        None => {
            let mut p = vec![0f32; l.len()];
            for x in &mut p[..l.b()] {
                *x = (rng.below(2001) as f32 / 1000.0 - 1.0) * 0.15;
            }
            for x in &mut p[l.b()..l.v()] {
                *x = 0.5;
            }
            p
        }
    };
    let (valid, mut order) = split(data.samples.len(), cfg.score_only, cfg.valid);
    let threads = cfg.threads.max(1);
    on_epoch(&EpochReport {
        epoch: 0,
        train_loss: mean_loss(&p, &l, &data, &order, k, threads),
        valid_loss: mean_loss(&p, &l, &data, &valid, k, threads),
    });
    let mut adam = Adam::new(l.len());
    let mut grads = vec![vec![0f32; l.len()]; CHUNKS];
    let mut losses = [0f64; CHUNKS];
    for epoch in 1..=cfg.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut epoch_loss = 0.0;
        for batch in order.chunks(cfg.batch.max(1)) {
            let anchor = cfg.l2;
            let (pr, lay, dr) = (&p, &l, &data);
            for_chunks(batch, &mut grads, &mut losses, threads, |part, g, loss| {
                for &j in part {
                    *loss += backward(pr, lay, dr, &dr.samples[j], k, anchor, g);
                }
            });
            let out_from = l.v();
            adam.step(&mut p, &grads, batch.len(), |i| {
                if i >= out_from {
                    cfg.lr * 100.0
                } else {
                    cfg.lr
                }
            });
            epoch_loss += losses.iter().sum::<f64>();
        }
        on_epoch(&EpochReport {
            epoch,
            train_loss: epoch_loss / order.len().max(1) as f64,
            valid_loss: mean_loss(&p, &l, &data, &valid, k, threads),
        });
    }
    // How much the network moves the held-out positions' scores.
    let outputs: Vec<f32> = valid
        .iter()
        .map(|&j| forward(&p, &l, &data, &data.samples[j]).0.abs())
        .collect();
    let report = NetReport {
        mean_output: outputs.iter().map(|&x| f64::from(x)).sum::<f64>()
            / outputs.len().max(1) as f64,
        max_output: outputs.iter().fold(0f32, |a, &x| a.max(x)),
    };
    let f = l.unflatten(&p);
    bare.net = Some(f.quantize());
    (bare, f, report)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::learn::train::learned_score;
    use crate::learn::train::tests::positions;
    use crate::rules::any_size::AnyPosition;

    pub(crate) fn random_net(seed: u64, size: BoardSize) -> FloatNet {
        let mut rng = Rng::new(seed);
        let mut r = |scale: f32| (rng.below(2001) as f32 / 1000.0 - 1.0) * scale;
        let inputs = net_inputs(size);
        FloatNet {
            inputs,
            w: (0..inputs * HIDDEN).map(|_| r(0.3)).collect(),
            b: (0..HIDDEN).map(|_| 0.5 + r(0.3)).collect(),
            v: (0..2 * HIDDEN).map(|_| r(40.0)).collect(),
            c: r(10.0),
            end: None,
        }
    }

    /// Quiet positions of `seed` labelled (search score only) by `patterns` plus the network `f`.
    fn labelled_by<'a>(
        patterns: &'a LearnedWeights,
        f: &FloatNet,
    ) -> impl Fn(u64, usize) -> Vec<Record> + 'a {
        let mut labeller = patterns.clone();
        labeller.net = Some(f.quantize());
        move |seed, count| {
            positions(count, seed)
                .iter()
                .map(|p| {
                    let score = learned_score(&labeller, p);
                    Record::new(p, crate::learn::data::Outcome::Draw, score, 0)
                })
                .collect()
        }
    }

    /// The mean distance of `w`'s scores from the records' search scores, hundredths of a man.
    fn mean_off(w: &LearnedWeights, records: &[Record]) -> f64 {
        let total: f64 = records
            .iter()
            .map(|r| (f64::from(learned_score(w, &r.position())) - f64::from(r.score)).abs())
            .sum();
        total / records.len() as f64
    }

    /// Training on search scores alone (K 100) in small batches, as the known-network tests use it.
    fn fit_scores(phased: bool) -> TrainConfig {
        TrainConfig {
            epochs: 60,
            batch: 128,
            lr: 0.003,
            lambda: 0.0,
            valid: 0.0,
            k: Some(100.0),
            seed: 3,
            threads: 2,
            phased,
            ..TrainConfig::default()
        }
    }

    /// `f` with an endgame output layer unlike its opening one.
    pub(crate) fn phased(mut f: FloatNet, seed: u64) -> FloatNet {
        let mut rng = Rng::new(seed);
        let ve = (0..2 * HIDDEN)
            .map(|_| (rng.below(2001) as f32 / 1000.0 - 1.0) * 60.0)
            .collect();
        f.end = Some((ve, -f.c));
        f
    }

    #[test]
    fn the_integer_network_scores_as_the_float_one() {
        for phased_net in [false, true] {
            let patterns = LearnedWeights::initial(BoardSize::S8, Default::default());
            let mut f = random_net(5, BoardSize::S8);
            if phased_net {
                f = phased(f, 6);
            }
            let mut with_net = patterns.clone();
            with_net.net = Some(f.quantize());
            let records: Vec<Record> = positions(300, 9)
                .iter()
                .map(|p| Record::new(p, crate::learn::data::Outcome::Draw, 0, 0))
                .collect();
            let data = extract(BoardSize::S8, &records, &patterns, 100.0, (0.5, 0));
            let l = Layout {
                inputs: f.inputs,
                phased: phased_net,
            };
            let p = l.flatten(&f);
            assert_eq!(l.unflatten(&p), f);
            let (mut spread, mut total) = (0.0f32, 0.0f32);
            for (s, r) in data.samples.iter().zip(&records) {
                let float = player_score(&p, &l, &data, s);
                let pos: AnyPosition = r.position();
                let mut int = learned_score(&with_net, &pos) as f32;
                if r.side == Side::Bot {
                    int = -int;
                }
                spread = spread.max((float - s.base).abs());
                // Rounding: 1/256 of a unit per first-layer weight, up to 40 hundredths per unit.
                assert!((float - int).abs() <= 12.0, "float {float}, integer {int}");
                total += (float - int).abs();
            }
            let mean = total / records.len() as f32;
            assert!(mean < 3.0, "{mean}");
            // The network changes the scores: the comparison is not of the patterns alone.
            assert!(spread > 20.0, "{spread}");
        }
    }

    /// Positions labelled by the patterns plus a phased network whose two output layers differ:
    /// a phased network trained on them from that network's first layer and its opening output
    /// layer (as `train --net --phased` starts from a network with one layer) comes closer to
    /// the labels on unseen positions than one output layer trained the same way can.
    #[test]
    fn a_phased_network_learns_what_one_output_layer_cannot() {
        let patterns = LearnedWeights::initial(BoardSize::S8, Default::default());
        let truth = phased(random_net(13, BoardSize::S8), 14);
        let label = labelled_by(&patterns, &truth);
        let (train, test) = (label(31, 4000), label(32, 500));
        let mut start = truth.clone();
        start.end = None;
        let off = |phased_net: bool| {
            let cfg = fit_scores(phased_net);
            let (trained, f, _) = train_net(
                BoardSize::S8,
                &train,
                &patterns,
                Some(&start),
                &cfg,
                &mut |_| {},
            );
            assert_eq!(f.end.is_some(), phased_net);
            mean_off(&trained, &test)
        };
        let mut at_start = patterns.clone();
        at_start.net = Some(start.quantize());
        let before = mean_off(&at_start, &test);
        let (one, two) = (off(false), off(true));
        // Measured: 61.7 at the start, 16.7 with one layer, 12.6 phased. One layer gets part of
        // the way (its hidden units can count the pieces), the phased one further.
        assert!(one < before * 0.5, "start {before}, one layer {one}");
        assert!(
            two < one * 0.85,
            "start {before}, one layer {one}, phased {two}"
        );
    }

    /// Positions labelled (search score only) by the patterns plus a known network: a network
    /// trained on them from a random start comes close to the known one's scores on positions it
    /// did not see, where the patterns alone are far off.
    #[test]
    fn the_trainer_recovers_a_known_network() {
        let patterns = LearnedWeights::initial(BoardSize::S8, Default::default());
        let mut truth = random_net(11, BoardSize::S8);
        truth.v.iter_mut().for_each(|x| *x *= 2.0);
        let label = labelled_by(&patterns, &truth);
        let (train, test) = (label(21, 6000), label(22, 600));
        let cfg = fit_scores(false);
        let (trained, _, _) = train_net(BoardSize::S8, &train, &patterns, None, &cfg, &mut |_| {});
        let (before, after) = (mean_off(&patterns, &test), mean_off(&trained, &test));
        assert!(before > 40.0, "the network matters: {before}");
        assert!(after < before * 0.5, "{before} -> {after}");
    }
}
