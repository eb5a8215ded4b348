"""Gates: rules over ``summary.json`` paths (``warn: leakage.L_k <= 0.5``) and their evaluation.

* `rules` -- parsing a rule's text into a `Rule`;
* [`checks`][auditad.gates.checks] -- evaluating rules on a summary, verdicts, ``auditad gate``;
* `defaults` -- the reading thresholds and the default gates, declared once.
* `options` -- the gate and CI-output options (``--gate``, ``--fail-on``, ``--no-default-gates``,
  ``--junit``, ``--markdown``), declared once: flags, configuration keys and docs.

Used by the audit pipeline, ``auditad results``, ``auditad diff`` and ``auditad gate``; it imports
no statistic and no presentation.
"""
