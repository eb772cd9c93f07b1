"""Is a fact a command to the assistant? The memory-injection filter.

Stored memories are injected into later prompts, so a "fact" that tries to command the assistant
is an attack path (memory injection). Those are refused before anything is stored: a model's
facts (facts.py), the notes of the model-free mode (worker/turn_notes.py) and the memory API's
writes. Each language's commands are in its file (lang/*.py, ``commands``), all of them read on
every text (a command in any language is one); here, the chat roles and fences no language owns.
"""

from __future__ import annotations

import re

from memory_extproc.lang import FILED, either

# a chat template's or a role's marker, and the fence memories are injected in (retrieval/
# context.py): "<|im_start|>system", "[INST]", "system:", "</user_memories>"
_ROLES = (
    r"<\|im_(?:start|end)\|>",
    r"\[/?INST\]",
    r"<<\s*/?SYS\s*>>",
    r"(?:^|\n|[\]】>\uff1e])\s*\#{0,6}\s*\[?(?:system|assistant|developer)\]?\s*:",
    r"\[system\]",
    r"<\s*/?\s*user_?memor",
)
_INSTRUCTION = re.compile(
    either([*(c for language in FILED for c in language.commands), *_ROLES]), re.IGNORECASE
)


def is_instruction_like(text: str) -> bool:
    """ "User prefers answers in French" is a fact; "Always respond in French" is a command."""
    return bool(_INSTRUCTION.search(text))
