"""Enforcement: infraction catalogue, autos de infração, notice, defense, judgement with
recidivism, appeals, effects on the grant and the fine (DAM).

Interpretations adopted (documented here and in the services that apply them):
- Flow: issued → notified (ciência or refusal) → defense_filed | awaiting_judgement →
  upheld | dismissed → appealed → final. Where the pack has no ``defense.days`` (no
  defense phase in the law) the notice sends the auto straight to awaiting_judgement and
  the holder is heard in the appeal. A julgador may judge once the auto is notified.
- Deadlines in calendar days from the day after the event: the defense from the ciência,
  the appeal from the decision (the holder is told in the portal and by e-mail that day), or
  from the ciência of the notice of the autuação where the law says so
  (``appeal.counted_from = "notice"``): then a late decision may leave no time to appeal.
- Effects on the grant apply at the upheld decision where the appeal has no suspensive effect
  (``appeal.suspensive = false``, with the article in the pack; where a law is silent the pack
  follows the general rule of Lei 9.784/1999 art. 61), and an appeal that is granted undoes
  them (grant active again, bars lifted — kept with the day and reason); without that
  parameter they wait for the final decision. The fine's DAM is issued when the decision is
  final (appeal window closed without appeal, or the appeal judged). Effects: suspension for
  its days from the decision (lifted by a periodic job), suspension until
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
