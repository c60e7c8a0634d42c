"""Enforcement: infraction catalogue, autos de infração, notice, defense, judgement with
recidivism, appeals, effects on the grant and the fine (DAM).

Interpretations adopted (documented here and in the services that apply them):
- Flow: issued → notified (ciência, refusal, or publication when the holder cannot be found)
  → defense_filed | awaiting_judgement (period over, or waived in writing) → upheld | dismissed
  → (notice of the decision) → appealed → final.
- Due process (issue #13). No judgement while the defense period runs (Lei 3.703/2022 art. 18
  and §4; PL 015/2025 art. 22; Lei 724/2008, silent: Constituição art. 5º, LV with an example period):
  409 ``defense_period_running`` until the day after its last day, unless a defense was filed
  or the holder waived the period in writing (online, or on paper recorded by the clerk).
- The appeal period counts from the ciência of the notice of the decision
  (``appeal.counted_from = "decision_notice"``): Lei 3.703/2022 art. 18, §5 orders "nova notificação para
  o oferecimento de recurso" once the defense is over, so the "notificação" of §7 is read as that
  one — counting from the autuação's notice would let the period end before the decision exists;
  PL 015/2025 art. 25 with Lei 9.784/1999 art. 59; Lei 724/2008 art. 25, caput and §1 ("da data de
  notificação caberá recurso"), also for the second instance of §2. Until the notice the upheld
  decision has no appeal period, no effect and is never final; an appeal filed before the notice
  is in time (the holder knew of the decision) and lets the effects start.
- Effects on the grant apply at the notice of the decision where the appeal has no suspensive
  effect (``appeal.suspensive = false``: Lei 3.703/2022; PL 015/2025 art. 25, §4), and an appeal granted undoes
  them; under Lei 724/2008 (``appeal.suspensive = true``) applies suspension, impediment and cancellation only
  when the decision is final. The fine's DAM is issued when the decision is final.
- Two instances, two people (``appeal.distinct_judge``; Lei 3.703/2022 art. 18, §6; PL 015/2025 art. 25;
  Lei 724/2008 art. 25, §§1º–2º): whoever decided an earlier instance of the auto is refused (409
  ``same_judge_both_instances``); any other julgador may decide the appeal. The ex officio review
  (PL 015/2025 art. 25, §1) may only reform a dismissal after the holder was heard
  (``appeal.ex_officio_hearing_days``; Lei 9.784/1999 art. 64, parágrafo único).
- Deadlines in calendar days from the day after the event, moved to the next business day when
  the last day has no office hours (``deadlines.next_business_day``, Lei 9.784/1999 art. 66, §1º,
  where the municipal law is silent): weekends, national and state holidays (``holidays``
  package, state of the pack) and the pack's municipal ones (``deadlines.municipal_holidays``).
  Each deadline stores how it was counted (``*_deadline_note``).
- Example values produce no legal effect: a fine left to regulation (Lei 3.703/2022 arts. 19–22) or
  computed on an example fiscal unit (UFP, UMT) is recorded without amount
  (``missing_regulation`` names the regulation) until the administrator records the regulation
  (``RecordedRegulation``: number, date, value, in force from its date); the value in force on the
  day of the infraction applies. The other penalties apply as usual.
- Recidivism: Lei 3.703/2022 art. 23 counts 30 days from a first fine (``recidivism.counted_from =
  "first_fine"``: the window does not slide from one doubled fine to the next), on the dates of
  the infractions (PRODUCT.md); Lei 724/2008 art. 26 counts any earlier upheld auto within 90 days,
  with or without fine (``recidivism.counts = "any_penalty"``), doubling the last multiplier.
  An earlier auto annulled on appeal or cancelled stops counting and the later penalties doubled
  because of it are recomputed (audit entry, notice; an unpaid DAM follows, a paid one owes back).
- PL 015/2025 art. 21, §2, III: refusing the notice cancels the authorization by itself
  (``notice.refusal_cancels_grant``) — a cancellation, without the 60-month bar of cassação.
- Paper filings: the clerk records a defense, a waiver or an appeal delivered at the counter or
  by post with its date of receipt (which judges timeliness), the scanned pages, and who
  received it.
"""
