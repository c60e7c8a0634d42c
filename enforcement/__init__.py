"""Enforcement: infraction catalogue, autos de infração, notice, defense, judgement with
recidivism, appeals, effects on the grant and the fine (DAM).

Interpretations adopted (documented here and in the services that apply them):
- Flow: issued → notified (ciência or refusal) → defense_filed | awaiting_judgement →
  upheld | dismissed → appealed → final. Where the pack has no ``defense.days`` (no
  defense phase in the law) the notice sends the auto straight to awaiting_judgement and
  the holder is heard in the appeal. A julgador may judge once the auto is notified.
- Deadlines in calendar days from the day after the event: the defense from the ciência,
  the appeal from the decision (the holder is told in the portal and by e-mail that day).
- Effects apply when the decision is final (appeal window closed without appeal, or the
  appeal judged): suspension for its days (lifted by a periodic job), suspension until
  regularised / impediment without end date (ended by the clerk's regularisation record,
  fine paid); a further suspension while one is served starts the day after it ends (a
  suspension without end date absorbs a fixed one), cassação / Código E (grant cassada, alvarás follow, holder and auxiliaries
  barred for ``cassation.bar_months`` or without term under ``revocation.bars_future_grants``),
  fine → DAM due in ``fees.due_days`` (30 days when the pack is silent).
- Recidivism by the dates of occurrence, inclusive window; progressive doubling doubles
  the multiplier of the last fine in the window (×2, ×4, …).
- A dismissal goes to ex officio review where ``appeal.ex_officio_review``: granting the
  review reforms the dismissal (upheld, final); denying it confirms the archive.
- Fine values left to decree: the catalogue's example value, or the parameter
  ``fine.<code>`` (reais) the admin enters, in force on the day of the infraction.
"""
