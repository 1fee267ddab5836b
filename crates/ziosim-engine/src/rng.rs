//! Xoshiro256++ (Blackman & Vigna, 2019), seeded through SplitMix64 from
//! `(scenario seed, stream name)`. Portable: the same seed and name give the same draws
//! on every machine. Streams are independent by construction of their seeds.

/// 64-bit FNV-1a of the stream name, mixed with the seed: a stable stream key.
pub fn stream_seed(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The one PRNG of ziosim.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn from_u64(seed: u64) -> Rng {
        let mut x = seed;
        let s = [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)];
        Rng { s }
    }
    /// The stream named `name` of scenario seed `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        Rng::from_u64(stream_seed(seed, name))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits.
    #[inline]
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n) (Lemire's multiply-shift; n > 0). The slight bias for
    /// huge n is below 2^-64 per draw and the result is deterministic, which is what matters.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean (for Poisson arrivals).
    #[inline]
    pub fn exp(&mut self, mean: f64) -> f64 {
        // 1 - u is in (0, 1], so ln is finite.
        -mean * (1.0 - self.f64()).ln()
    }

    /// Standard normal (Box–Muller; one draw per call, deterministic).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.f64();
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// True with probability p.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_vector() {
        // Xoshiro256++ reference: state {1,2,3,4} yields 41943041, 58720359, 3588806011781223, ...
        let mut r = Rng { s: [1, 2, 3, 4] };
        assert_eq!(r.next_u64(), 41943041);
        assert_eq!(r.next_u64(), 58720359);
        assert_eq!(r.next_u64(), 3588806011781223);
    }

    #[test]
    fn streams_are_stable_and_distinct() {
        let a1: Vec<u64> = (0..4).map({ let mut r = Rng::stream(7, "disk/sda"); move |_| r.next_u64() }).collect();
        let a2: Vec<u64> = (0..4).map({ let mut r = Rng::stream(7, "disk/sda"); move |_| r.next_u64() }).collect();
        let b: Vec<u64> = (0..4).map({ let mut r = Rng::stream(7, "disk/sdb"); move |_| r.next_u64() }).collect();
        let c: Vec<u64> = (0..4).map({ let mut r = Rng::stream(8, "disk/sda"); move |_| r.next_u64() }).collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, c);
    }

    #[test]
    fn uniform_and_exp_moments() {
        let mut r = Rng::stream(1, "t");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.f64()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "{m}");
        let e: f64 = (0..n).map(|_| r.exp(3.0)).sum::<f64>() / n as f64;
        assert!((e - 3.0).abs() < 0.05, "{e}");
        for _ in 0..1000 {
            assert!(r.below(10) < 10);
        }
    }
}
