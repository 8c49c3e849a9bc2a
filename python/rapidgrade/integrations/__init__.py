"""rapidgrade where its users already are: RL trainers and evaluation harnesses.

Each module meets one library on its own terms and grades with :func:`rapidgrade.grade_many`
(the C++ fast path, then the SymPy fallback in the per-process worker pool, never a signal):

* :mod:`rapidgrade.integrations.verl`: ``compute_score`` (verl's custom reward function, by file
  path and name) and ``compute_score_batch`` (verl's batched reward manager).
* :mod:`rapidgrade.integrations.trl`: ``accuracy_reward`` and ``format_reward`` for
  ``GRPOTrainer(reward_funcs=...)``.
* :mod:`rapidgrade.integrations.rewards`: what the reward functions share: ``format_reward``,
  ``pass_at_k`` and ``majority_vote`` for reward shaping.
* :mod:`rapidgrade.integrations.lighteval`: a sample-level metric for lighteval tasks (needs
  lighteval).
* :mod:`rapidgrade.integrations.datasets`: ``grade_dataset`` and ``map_fn`` for Hugging Face
  ``datasets`` (also ``rapidgrade.grade_dataset`` / ``rapidgrade.map_fn``).

None of them needs its library to be imported except ``lighteval`` (its metric classes are
lighteval's): the reward functions only follow the calling conventions. docs/integrations.md
says which combination of libraries installs together and what each gives.
"""

from __future__ import annotations
