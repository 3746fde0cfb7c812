"""Who may see and change which run when the app is shared by a team (issue 30).

With sign-in off (local use, the default) everyone who reaches the server is treated alike: every run is theirs to
see, resume, rename and delete, so the server listens on this machine only unless the operator says otherwise. With
sign-in on (Streamlit's OpenID Connect, configured in ``.streamlit/secrets.toml``), a run launched from the app
records its owner (``Owner``: the provider's subject), and only the owner or an admin the operator lists may resume,
rename or delete it. Runs with no owner are the operator's (the command line, the demo run): everyone signed in sees
them, only admins change them. The operator chooses whether signed-in users see the others' runs (``runs_visible =
"all"``, the default) or only their own (``"own"``).

The app reads the policy from the ``[summbias]`` table of its secrets::

    [summbias]
    admins = ["google-oauth2|1234"]      # the provider's subjects ("sub") of the admins
    runs_visible = "own"                 # "all" (default) or "own"
    network_without_sign_in = false      # true: serve other machines even with sign-in off (everyone is alike)
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bias_core.runs.run_info import Owner, RunInfo
from bias_core.safety.errors import InputError

SETTINGS_TABLE = "summbias"
_SETTINGS = ("admins", "runs_visible", "network_without_sign_in")
VISIBILITIES = ("all", "own")
_WHERE = f"[{SETTINGS_TABLE}] in .streamlit/secrets.toml"


@dataclass(frozen=True)
class AccessPolicy:
    """What a visitor may do with a run: decided on the run's owner and the visitor's subject, nothing else."""

    sign_in: bool = False
    admins: frozenset[str] = frozenset()
    runs_visible: str = "all"
    network_without_sign_in: bool = False

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None, *, sign_in: bool) -> AccessPolicy:
        """The policy of the secrets' ``[summbias]`` table (None: the defaults); one ``InputError`` line for an
        unknown key or a value of the wrong kind, so a typo never silently opens runs to everyone."""
        settings = dict(settings or {})
        unknown = sorted(set(settings) - set(_SETTINGS))
        if unknown:
            raise InputError(_WHERE, f"unknown keys {', '.join(unknown)} (known: {', '.join(_SETTINGS)})")
        admins = settings.get("admins", [])
        if not isinstance(admins, list) or not all(isinstance(admin, str) and admin for admin in admins):
            raise InputError(_WHERE, "admins must be a list of the provider's subjects (text)")
        visible = settings.get("runs_visible", "all")
        if visible not in VISIBILITIES:
            raise InputError(_WHERE, f"runs_visible must be \"all\" or \"own\", not {visible!r}")
        network = settings.get("network_without_sign_in", False)
        if not isinstance(network, bool):
            raise InputError(_WHERE, "network_without_sign_in must be true or false")
        return cls(sign_in=sign_in, admins=frozenset(admins), runs_visible=visible,
                   network_without_sign_in=network)

    def is_admin(self, visitor: Owner | None) -> bool:
        return visitor is not None and visitor.subject in self.admins

    def may_see(self, visitor: Owner | None, run: RunInfo) -> bool:
        """Whether ``visitor`` (None: not signed in) may open ``run``."""
        if not self.sign_in:
            return True
        if visitor is None:
            return False
        return (self.runs_visible == "all" or run.owner is None or run.owner.subject == visitor.subject
                or self.is_admin(visitor))

    def may_change(self, visitor: Owner | None, run: RunInfo) -> bool:
        """Whether ``visitor`` may resume, rename or delete ``run``: its owner or an admin (anyone, sign-in off)."""
        if not self.sign_in:
            return True
        if visitor is None:
            return False
        return self.is_admin(visitor) or (run.owner is not None and run.owner.subject == visitor.subject)

    def visible(self, visitor: Owner | None, runs: Iterable[RunInfo]) -> list[RunInfo]:
        """The runs ``visitor`` may open, in their order."""
        return [run for run in runs if self.may_see(visitor, run)]

    def refusal(self, visitor: Owner | None, run: RunInfo, action: str) -> str | None:
        """One line saying why ``visitor`` may not ``action`` ("delete", "resume", "rename") ``run``, or None when
        they may."""
        if self.may_change(visitor, run):
            return None
        if visitor is None:
            return f"Sign in to {action} a run."
        whose = f"{run.owner.label}'s" if run.owner else "the operator's (it was started from the command line)"
        return f"Only the run's owner or an admin may {action} it: run {run.id} is {whose}."


def is_loopback(address: str | None) -> bool:
    """Whether a server listening on ``address`` is reached from this machine only ("" or None: every interface)."""
    if not address:
        return False
    if address.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any interface


def listening_problem(address: str | None, policy: AccessPolicy) -> str | None:
    """One line when the server must not serve: it listens beyond this machine (``address``) with sign-in off and
    the operator has not said that everyone on the network may see and delete every run; else None."""
    if policy.sign_in or policy.network_without_sign_in or is_loopback(address):
        return None
    where = f"address {address}" if address else "every network address"
    return (f"This server listens on {where} without sign-in, so anyone on the network could see and delete every "
            "run: it serves nothing. Configure sign-in ([auth] in .streamlit/secrets.toml), listen on 127.0.0.1, or "
            f"set network_without_sign_in = true in [{SETTINGS_TABLE}] of the secrets.")
