"""The in-process memory of labellings: labels remembered compactly and read back as they
were made."""

from __future__ import annotations

import numpy as np

from corpora.model import LABELS, OUTSIDE, PHI
from infra.memo import approximate_size
from systems import prediction_cache


def test_remembered_labels_are_one_byte_a_token_and_read_back_unchanged() -> None:
    labels = [OUTSIDE, *LABELS, PHI, OUTSIDE] * 50
    packed = prediction_cache._pack(labels)
    assert isinstance(packed, np.ndarray) and packed.dtype == np.uint8
    assert prediction_cache._unpack(packed) == labels
    assert all(type(x) is str for x in prediction_cache._unpack(packed))
    # the memo weighs an entry at about a byte a token, where a list costs a pointer
    assert approximate_size(packed) < approximate_size(list(labels)) / 4
    # a label outside the interface is kept as it is (the interface check refuses it later)
    odd = [OUTSIDE, "NOT-A-LABEL"]
    assert prediction_cache._unpack(prediction_cache._pack(odd)) == odd
