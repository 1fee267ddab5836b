//! ZFS releases ziosim models (`design.md` §3). A release selects algorithms and every
//! default; see `tunables.rs` for the per-release defaults.

use serde::{Deserialize, Serialize};

/// Releases in chronological order (the order matters: `>=` means "at least as new").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Release {
    #[serde(rename = "solaris-2009")]
    Solaris2009,
    #[serde(rename = "freebsd-9")]
    Freebsd9,
    #[serde(rename = "illumos-2012")]
    Illumos2012,
    #[serde(rename = "illumos-2014")]
    Illumos2014,
    #[serde(rename = "zfs-0.6.5")]
    Zfs065,
    #[serde(rename = "zfs-0.7")]
    Zfs07,
    #[serde(rename = "zfs-0.8")]
    Zfs08,
    #[serde(rename = "zfs-2.0")]
    Zfs20,
    #[serde(rename = "zfs-2.1")]
    Zfs21,
    #[serde(rename = "zfs-2.2")]
    Zfs22,
    #[serde(rename = "zfs-2.3")]
    Zfs23,
}

/// Which per-leaf vdev_queue algorithm a release uses (`zfs-model.md` §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueEra {
    /// Pre-2013 deadline queue with min/max_pending (§2.1).
    Deadline,
    /// 2013 class scheduler, strict priority min then max pass (§2.2).
    Classes,
    /// 2.0.1/2.1 non-interactive throttle with round-robin min pass (§2.3).
    Nia,
    /// 2.2 FIFO lists and 0.537 s deadline buckets for LBA classes (§2.4).
    Fifo,
}

impl Release {
    pub const ALL: [Release; 11] = [
        Release::Solaris2009,
        Release::Freebsd9,
        Release::Illumos2012,
        Release::Illumos2014,
        Release::Zfs065,
        Release::Zfs07,
        Release::Zfs08,
        Release::Zfs20,
        Release::Zfs21,
        Release::Zfs22,
        Release::Zfs23,
    ];

    /// A failed disk is replaced by a hot spare without the administrator: FMA's zfs-retire
    /// agent on Solaris and illumos, zed's `zfs_retire` agent from ZoL 0.7.0
    /// (cmd/zed/agents/zfs_retire.c `replace_with_spare`; 0.6.5's zed had only the
    /// `io-spare.sh` script, off in its default zed.rc). FreeBSD 9 has no zfsd (FreeBSD 11).
    pub fn activates_spares(self) -> bool {
        !matches!(self, Release::Freebsd9 | Release::Zfs065)
    }

    pub fn key(self) -> &'static str {
        match self {
            Release::Solaris2009 => "solaris-2009",
            Release::Freebsd9 => "freebsd-9",
            Release::Illumos2012 => "illumos-2012",
            Release::Illumos2014 => "illumos-2014",
            Release::Zfs065 => "zfs-0.6.5",
            Release::Zfs07 => "zfs-0.7",
            Release::Zfs08 => "zfs-0.8",
            Release::Zfs20 => "zfs-2.0",
            Release::Zfs21 => "zfs-2.1",
            Release::Zfs22 => "zfs-2.2",
            Release::Zfs23 => "zfs-2.3",
        }
    }

    pub fn parse(s: &str) -> Option<Release> {
        Release::ALL.iter().copied().find(|r| r.key() == s)
    }

    pub fn queue_era(self) -> QueueEra {
        match self {
            Release::Solaris2009 | Release::Freebsd9 | Release::Illumos2012 => QueueEra::Deadline,
            Release::Illumos2014 | Release::Zfs065 | Release::Zfs07 | Release::Zfs08 | Release::Zfs20 => {
                QueueEra::Classes
            }
            Release::Zfs21 => QueueEra::Nia,
            Release::Zfs22 | Release::Zfs23 => QueueEra::Fifo,
        }
    }

    /// True for the ZFS-on-Linux / OpenZFS line (as opposed to Solaris/illumos/FreeBSD legacy).
    pub fn is_openzfs_line(self) -> bool {
        self >= Release::Zfs065
    }

    /// The ARC's default maximum size (`arc_c_max` with `zfs_arc_max` unset) on a machine
    /// with `ram` bytes, as the OpenZFS releases compute it on Linux, where ziosim runs them
    /// (`arc_default_max`, module/os/linux/zfs/arc_os.c): half of memory up to 2.2
    /// (zfs-2.2.0), MAX(5/8 of memory, memory − 1 GiB) from 2.3 (zfs-2.3.0; below 1 GiB
    /// the second term is `arc_c_min`, smaller than 5/8, so 5/8). The scan's and the
    /// rebuild's in-flight limits are fractions of it (2.2+).
    pub fn arc_c_max(self, ram: u64) -> u64 {
        if self >= Release::Zfs23 {
            (ram / 8 * 5).max(ram.saturating_sub(1 << 30))
        } else {
            ram / 2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_c_max_follows_each_releases_arc_default_max() {
        const G: u64 = 1 << 30;
        assert_eq!(Release::Zfs22.arc_c_max(16 * G), 8 * G);
        // 2.3: memory − 1 GiB once that exceeds 5/8 of it (above 2.67 GiB) …
        assert_eq!(Release::Zfs23.arc_c_max(16 * G), 15 * G);
        // … and 5/8 of it below.
        assert_eq!(Release::Zfs23.arc_c_max(2 * G), 2 * G / 8 * 5);
        assert_eq!(Release::Zfs23.arc_c_max(256 << 20), 160 << 20);
    }
}
