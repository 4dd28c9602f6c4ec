"""The static section's Xor+ check (issue 23), computed from records: xor_plus8's bits/key against
the XOR paper's 9.23 (quoted by the AMQ survey), judged by its own claim and not by xor8's 9.84.
Each test flips a verdict by changing a number."""

import pandas as pd

import claims
import stats
from sections import static
from test_fair_sections import Records

XOR_PLUS = "8-bit fingerprints: compressible to 9.23 bits/key by keeping a bitmap of occupied slots (Xor+)"
XOR8 = "8-bit fingerprints: 9.84 bits/key"


def rows(xor_plus_bits=9.158, xor8_bits=9.840):
    return pd.DataFrame([
        {"filter": "xor8", "family": "xor", "bits_per_key": xor8_bits},
        {"filter": "xor_plus8", "family": "xor", "bits_per_key": xor_plus_bits},
    ])


def checks(frame):
    records = Records({})
    static.paper_claims(records, frame)
    return records.checks


def verdict(frame, words):
    [claim] = [c for c in claims.CLAIMS if c.words == words]
    return claims.judge(claim, checks(frame)).verdict


def test_xor_plus8_is_judged_against_9_23():
    assert verdict(rows(), XOR_PLUS) == stats.REPRODUCED  # 0.8% under, within 1%
    assert verdict(rows(xor_plus_bits=9.36), XOR_PLUS) == stats.PARTLY  # 1.4%: within twice the tolerance
    assert verdict(rows(xor_plus_bits=9.50), XOR_PLUS) == stats.CONTRADICTED
    assert verdict(rows(xor_plus_bits=8.95), XOR_PLUS) == stats.CONTRADICTED


def test_each_claim_takes_only_its_own_filter():
    # xor_plus8 far off its figure leaves xor8's claim as it was, and the reverse.
    assert verdict(rows(xor_plus_bits=12.0), XOR8) == stats.REPRODUCED
    assert verdict(rows(xor8_bits=12.0), XOR_PLUS) == stats.REPRODUCED
    judged = claims.judge(next(c for c in claims.CLAIMS if c.words == XOR8), checks(rows()))
    assert [check.evidence for check, _ in judged.deciding] == ["9.840"]


def test_a_failed_build_is_not_judged():
    frame = rows()
    frame["build_failed"] = [False, True]
    assert verdict(frame, XOR_PLUS) == stats.NOT_MEASURED
