"""What the store refuses, as messages a student or teacher reads on the page (never a traceback)."""


class StoreError(Exception):
    """A refusal with a message meant for the page."""


class ClassError(StoreError):
    """Unknown, expired or ended class; a taken or unusable name; a closed question; a teacher-only action."""


class RateLimited(StoreError):
    """Too many attempts in a short time (answers, joins, wrong teacher keys)."""


class StoreUnavailable(StoreError):
    """The database cannot be reached: lessons keep working alone."""
