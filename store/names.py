"""Class codes, display names and secrets: what a person types or reads, cleaned and checked."""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata

from store.errors import ClassError

# No 0/O, 1/I/L, 2/Z, 5/S, 8/B: a code read off a projector is typed right the first time.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6
MAX_NAME = 24  # characters a name keeps, after cleaning
MAX_NAME_INPUT = 200  # longer input is refused outright, never stored nor cleaned


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str:
    """A typed code as stored: upper case, without spaces or dashes (``"acd efg"`` → ``"ACDEFG"``)."""
    return re.sub(r"[\s\-]", "", str(text or "")).upper()[: CODE_LENGTH * 2]


def new_secret() -> str:
    """A teacher key or a member's token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def digest(secret: str) -> str:
    """How a secret is stored. SHA-256 suffices: the secrets are 192 random bits, not passwords a person chose."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def clean_name(text: str) -> str:
    """A display name as stored and shown: control and format characters removed (Unicode categories C*: no
    hidden direction overrides), whitespace collapsed, at most :data:`MAX_NAME` characters. Raises
    :class:`ClassError` with the reason when nothing usable is left or the input is far too long."""
    if text is None:
        text = ""
    if len(text) > MAX_NAME_INPUT:
        raise ClassError(f"That name is too long: a name has at most {MAX_NAME} characters.")
    kept = "".join(
        ch if not unicodedata.category(ch).startswith("C") else " " for ch in unicodedata.normalize("NFC", text)
    )
    kept = " ".join(kept.split())
    if not kept:
        raise ClassError("Pick a name (letters, digits or emoji), or take the one offered.")
    if len(kept) > MAX_NAME:
        raise ClassError(f"That name is too long: a name has at most {MAX_NAME} characters.")
    return kept


_ADJECTIVES = (
    "Amber",
    "Brave",
    "Calm",
    "Clever",
    "Eager",
    "Gentle",
    "Happy",
    "Keen",
    "Lucky",
    "Merry",
    "Noble",
    "Quick",
    "Quiet",
    "Swift",
    "Tidy",
    "Witty",
    "Bold",
    "Bright",
    "Kind",
    "Sunny",
)
_ANIMALS = (
    "Otter",
    "Heron",
    "Lynx",
    "Falcon",
    "Panda",
    "Koala",
    "Badger",
    "Dolphin",
    "Fox",
    "Hedgehog",
    "Ibis",
    "Lemur",
    "Marmot",
    "Owl",
    "Puffin",
    "Quokka",
    "Robin",
    "Seal",
    "Tapir",
    "Wombat",
)


def generated_name() -> str:
    """A friendly name for a student who does not want to pick one ("Swift Otter 42")."""
    return f"{secrets.choice(_ADJECTIVES)} {secrets.choice(_ANIMALS)} {secrets.randbelow(90) + 10}"
