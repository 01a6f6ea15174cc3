"""Encoders and decoders written as layer chains, after Sockeye's "How much attention do you need?" (ACL 2018).

``language`` parses the chains (``pos->repeat(2,res(norm->mh_dot_self_att)->res(norm->ff))->norm``) safely;
``model`` builds a :class:`ChainModel` from an encoder chain and a decoder chain.
"""

from .language import (
    ALIASES,
    LAYERS,
    LIMITS,
    STRUCTURES,
    ChainError,
    Limits,
    canonical,
    count_layers,
    format_chain,
    parse_chain,
    walk,
)
from .model import (
    CELLS,
    MAX_PARAMETERS,
    TRANSFORMER_DECODER,
    TRANSFORMER_ENCODER,
    ChainConfig,
    ChainModel,
    chain_parameters,
    check_config,
)

__all__ = [
    "ALIASES",
    "LAYERS",
    "LIMITS",
    "STRUCTURES",
    "ChainError",
    "Limits",
    "canonical",
    "count_layers",
    "format_chain",
    "parse_chain",
    "walk",
    "CELLS",
    "MAX_PARAMETERS",
    "TRANSFORMER_DECODER",
    "TRANSFORMER_ENCODER",
    "ChainConfig",
    "ChainModel",
    "chain_parameters",
    "check_config",
]
