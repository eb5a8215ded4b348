r"""The test-set class counts behind an ADBench result, from the public dataset sizes and ADBench's own split.

`ADBENCH_DATASETS` lists the size and the number of anomalies of the ADBench data sets as the ADBench
README (table "Datasets", Han et al. 2022, Table D1) gives them; MVTec-AD and 20newsgroups are left out
(their sizes differ per category).  `ADBENCH_EARLY_DATASETS` holds the names of the first public result
files (``Lymphography_withoutdupl_idf``, ``imgseg.diff``, ...).  Names are matched exactly (case,
punctuation and a leading ``NN_`` aside): an ELKI variant with another outlier rate is never taken for
the one ADBench used.  [`adbench_test_counts`][auditad.leaderboards.adbench_test_counts]
turns them into the counts a score of ADBench's ``DataGenerator`` was computed on:

* a data set larger than 10 000 points is subsampled to 10 000 (without replacement);
* a data set smaller than 1 000 points is resampled *with replacement* up to 1 000 points
  (``generate_duplicates=True``);
* the points are split with ``test_size=0.3``, stratified by label.

Resampled copies of one point get the same score, so the test set of a small data set holds fewer
independent points than it has rows.  For m draws (with replacement) from n points, the Mann–Whitney
variance of AUROC under random scores per *distinct* point is that of
\(n_{eff} = (\sum_k c_k)^2 / \sum_k c_k^2\) points per class (\(c_k\) the copies of point k), whose
expectation is

\[
n_{eff} \approx \frac{m\,n}{n + m - 1}.
\]

For Lymphography (148 points, 6 anomalies) the 300 test rows hold about 12 anomaly draws from 6
anomalies: \(n_{+,eff} = 12.2 \cdot 6 / 17.2 \approx 4\).
"""

from __future__ import annotations

import re

__all__ = ["ADBENCH_DATASETS", "ADBENCH_EARLY_DATASETS", "ADBENCH_FAMILIES", "ADBENCH_SPLIT", "adbench_test_counts"]

#: ADBench ``DataGenerator`` defaults: test share, duplicate-up-to size, subsample-down-to size.
ADBENCH_SPLIT = {"test_size": 0.3, "n_samples_threshold": 1000, "max_samples": 10000}

#: name -> (points, anomalies), from the ADBench README's dataset table (Han et al., NeurIPS 2022).
ADBENCH_DATASETS = {
    "ALOI": (49534, 1508),
    "annthyroid": (7200, 534),
    "backdoor": (95329, 2329),
    "breastw": (683, 239),
    "campaign": (41188, 4640),
    "cardio": (1831, 176),
    "Cardiotocography": (2114, 466),
    "celeba": (202599, 4547),
    "census": (299285, 18568),
    "cover": (286048, 2747),
    "donors": (619326, 36710),
    "fault": (1941, 673),
    "fraud": (284807, 492),
    "glass": (214, 9),
    "Hepatitis": (80, 13),
    "http": (567498, 2211),
    "InternetAds": (1966, 368),
    "Ionosphere": (351, 126),
    "landsat": (6435, 1333),
    "letter": (1600, 100),
    "Lymphography": (148, 6),
    "magic.gamma": (19020, 6688),
    "mammography": (11183, 260),
    "mnist": (7603, 700),
    "musk": (3062, 97),
    "optdigits": (5216, 150),
    "PageBlocks": (5393, 510),
    "pendigits": (6870, 156),
    "Pima": (768, 268),
    "satellite": (6435, 2036),
    "satimage-2": (5803, 71),
    "shuttle": (49097, 3511),
    "skin": (245057, 50859),
    "smtp": (95156, 30),
    "SpamBase": (4207, 1679),
    "speech": (3686, 61),
    "Stamps": (340, 31),
    "thyroid": (3772, 93),
    "vertebral": (240, 30),
    "vowels": (1456, 50),
    "Waveform": (3443, 100),
    "WBC": (223, 10),
    "WDBC": (367, 10),
    "Wilt": (4819, 257),
    "wine": (129, 10),
    "WPBC": (198, 47),
    "yeast": (1484, 507),
}
#: Names of the first public release of ADBench's result files (``result/*.csv`` of the repository's first
#: commit, ELKI / Emmott et al. variants) -> (points, anomalies), counted from that commit's ``datasets/``
#: files (from the README table where the file is not stored: ALOI, InternetAds, landsat, magic.gamma, skin,
#: http, smtp keep their names).
ADBENCH_EARLY_DATASETS = {
    "ALOI_withoutdupl": (49534, 1508),
    "Arrhythmia_withoutdupl_46": (450, 206),
    "Cardiotocography_withoutdupl_22": (2114, 466),
    "HeartDisease_withoutdupl_44": (270, 120),
    "Hepatitis_withoutdupl_16": (80, 13),
    "InternetAds_withoutdupl_norm_19": (1966, 368),
    "Ionosphere_withoutdupl_norm": (351, 126),
    "Lymphography_withoutdupl_idf": (148, 6),
    "PageBlocks_withoutdupl_09": (5393, 510),
    "Parkinson_withoutdupl_75": (195, 147),
    "Pima_withoutdupl_35": (768, 268),
    "SpamBase_withoutdupl_40": (4207, 1679),
    "Stamps_withoutdupl_09": (340, 31),
    "WBC_withoutdupl_v10": (223, 10),
    "WDBC_withoutdupl_v10": (367, 10),
    "WPBC_withoutdupl_norm": (198, 47),
    "Waveform_withoutdupl_v10": (3443, 100),
    "Wilt_withoutdupl_05": (4819, 257),
    "glass_withoutduplicates_normalized": (214, 9),
    "abalone.diff": (4177, 2081),
    "comm.and.crime.diff": (1994, 993),
    "concrete.diff": (1030, 515),
    "fault.diff": (1941, 673),
    "imgseg.diff": (2310, 990),
    "landsat.diff": (6435, 1333),
    "magic.gamma.diff": (19020, 6688),
    "skin.diff": (245057, 50859),
    "yeast.diff": (1484, 507),
}
#: Families of one-class-normal versions (``CIFAR10_3``, ``agnews_0``, ...): every version has these counts.
ADBENCH_FAMILIES = {
    "CIFAR10": (5263, 263),
    "FashionMNIST": (6315, 315),
    "MNIST-C": (10000, 500),
    "SVHN": (5208, 260),
    "agnews": (10000, 500),
    "amazon": (10000, 500),
    "imdb": (10000, 500),
    "yelp": (10000, 500),
}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_BY_KEY = {_key(k): v for k, v in {**ADBENCH_DATASETS, **ADBENCH_EARLY_DATASETS}.items()}
_FAMILY_BY_KEY = {_key(k): v for k, v in ADBENCH_FAMILIES.items()}


def _lookup(name: str):
    base = re.sub(r"^\d+_", "", name.strip())
    base = re.sub(r"\s*\(la=[^)]*\)$", "", base)
    if _key(base) in _BY_KEY:
        return _BY_KEY[_key(base)]
    head, sep, _ = base.rpartition("_")
    if sep and _key(head) in _FAMILY_BY_KEY:
        return _FAMILY_BY_KEY[_key(head)]
    return None


def _effective(draws: float, distinct: int) -> float:
    return draws * distinct / (distinct + draws - 1.0)


def adbench_test_counts(name: str):
    r"""The test counts (n₊, n₋) of an ADBench data set, effective counts for a resampled small one.

    Parameters
    ----------
    name : str
        A data set name as ADBench writes it (``"Lymphography"``, ``"21_Lymphography"``,
        ``"CIFAR10_3"``, ``"Lymphography_withoutdupl_idf"``); case and punctuation do not matter.

    Returns
    -------
    tuple of (int, int, str) or None
        ``(n_pos, n_neg, how)`` with ``how`` one of ``"split"`` (30 % of the data set),
        ``"subsampled"`` (30 % of 10 000) or ``"effective"`` (resampled to 1 000 with
        replacement: the effective numbers of distinct points, see the module documentation);
        None for a name the table does not hold.

    References
    ----------
    S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark", NeurIPS 2022
    (Datasets and Benchmarks Track): the data sets (Table D1) and the ``DataGenerator`` split.
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is stochastically
    larger than the other", Annals of Mathematical Statistics 18, 1947.

    See Also
    --------
    - [`auditad.leaderboards.read_leaderboard`][auditad.leaderboards.read_leaderboard]: fills the counts of an
      ADBench file from this table.

    Examples
    --------
    >>> adbench_test_counts("optdigits")   # 30 % of 5 216 points, 150 anomalies
    (45, 1520, 'split')
    >>> adbench_test_counts("21_Lymphography")
    (4, 95, 'effective')
    >>> adbench_test_counts("MVTec-AD_bottle") is None
    True
    """
    found = _lookup(str(name))
    if found is None:
        return None
    n, n_anom = found
    test = ADBENCH_SPLIT["test_size"]
    small, large = ADBENCH_SPLIT["n_samples_threshold"], ADBENCH_SPLIT["max_samples"]
    prevalence = n_anom / n
    if n < small:
        draws = test * small
        pos = _effective(draws * prevalence, n_anom)
        neg = _effective(draws * (1.0 - prevalence), n - n_anom)
        how = "effective"
    elif n > large:
        pos, neg, how = test * large * prevalence, test * large * (1.0 - prevalence), "subsampled"
    else:
        pos, neg, how = test * n_anom, test * (n - n_anom), "split"
    return max(1, int(round(pos))), max(1, int(round(neg))), how
