"""The package's exceptions: a refusal's code as the C++ library names it."""

import rfms
from rfms import _rfms


def test_every_refusal_code_of_the_library_is_a_member_of_refusal():
    names = _rfms.refusal_names()
    assert names == [member.value for member in rfms.Refusal]
    assert len(set(names)) == len(names)


def test_a_refusal_keeps_its_reason_and_its_code_and_an_unknown_code_is_unspecified():
    known = rfms.RequestRefused("move refused: unknown motion 'm' [unknown_name]", "unknown motion 'm'", "unknown_name")
    assert known.code is rfms.Refusal.UNKNOWN_NAME and known.code == "unknown_name"
    assert known.reason == "unknown motion 'm'"
    newer = rfms.RequestRefused("refused", "a reason of a newer supervisor", "some_new_code")
    assert newer.code is rfms.Refusal.UNSPECIFIED
