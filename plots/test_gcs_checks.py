"""The space section's Golomb-compressed set check (issue 23), computed from records: the Rice-coded
stream's bits/key against its expected length within 4 standard deviations. Each test flips a
verdict by changing a number."""

import pandas as pd

import stats
from sections import space
from test_fair_sections import Records


def rows(code_bits=9.4830, expected=9.4832, sd=0.000455):
    return pd.DataFrame([
        {"filter": "gcs", "family": "gcs", "target_fpr": 1 / 256, "keys_inserted": 1000000, "bits_per_key": 9.98,
         "code_bits_per_key": code_bits, "code_bits_per_key_expected": expected, "code_bits_per_key_sd": sd,
         "rice_bits": 7, "offset_bits": 14, "index_bits_per_key": 0.5},
    ])


def verdicts(frame):
    records = Records({})
    space.gcs_checks(records, frame)
    return records.verdicts("gcs at")


def test_the_stream_takes_the_rice_expectation():
    assert verdicts(rows()) == [stats.REPRODUCED]
    # the naive k + 1/(1 - q) of one unbucketed sequence, 9.5415, is 130 standard deviations off
    assert verdicts(rows(code_bits=9.5415)) == [stats.CONTRADICTED]
    # past 4 standard deviations "partly", past 8 contradicted (stats.verdict's bands)
    assert verdicts(rows(code_bits=9.4832 + 5 * 0.000455)) == [stats.PARTLY]
    assert verdicts(rows(code_bits=9.4832 + 9 * 0.000455)) == [stats.CONTRADICTED]


def test_only_gcs_rows_are_judged():
    frame = rows().assign(family="bloom", filter="bloom")
    assert verdicts(frame) == []
