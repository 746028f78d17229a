/**
 * The team form's invite link (TeamForm): the button that makes it, or the link with a Copy button and the rows the
 * families filled in (who is done, what each still lacks). Without JavaScript the button posts the form and the link
 * is a read-only field to select.
 */
import { useState } from "react";
import { ATHLETE_FIELDS } from "../src/shared/registrations/teamRules.ts";
import { INVITE_TEXT, type TeamInviteView } from "../src/shared/registrations/invites.ts";
import { useHydrated } from "./useHydrated.ts";
import { showToast } from "./toast.ts";

export function TeamInviteSection(props: { invite: TeamInviteView | null; busy: boolean; id: string }) {
  const enhanced = useHydrated();
  const [copied, setCopied] = useState(false);
  const { invite } = props;

  async function copy(url: string) {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
      showToast({ title: INVITE_TEXT.copied, variant: "success" });
    } catch {
      document.getElementById(`${props.id}-link`)?.focus();
    }
  }

  return (
    <section className="card registration-section team-invite" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>Let families fill in their rows</h2>
      {invite ? (
        <>
          <p className="field-hint">{INVITE_TEXT.intro}</p>
          <div className="field">
            <label htmlFor={`${props.id}-link`}>{INVITE_TEXT.created}</label>
            <input id={`${props.id}-link`} type="url" readOnly value={invite.url} data-testid="team-invite-link" onFocus={(e) => e.currentTarget.select()} />
          </div>
          {enhanced ? (
            <button type="button" className="btn btn-secondary" onClick={() => void copy(invite.url)}>{copied ? INVITE_TEXT.copied : INVITE_TEXT.copy}</button>
          ) : null}
          <h3>{INVITE_TEXT.rowsTitle}</h3>
          {invite.rows.length === 0 ? (
            <p className="muted">{INVITE_TEXT.noRows}</p>
          ) : (
            <ul className="team-invite-rows" data-testid="team-invite-rows">
              {invite.rows.map((r) => (
                <li key={r.id}>
                  <strong>{`${r.row.firstName} ${r.row.lastName}`}</strong>
                  {`, ${r.row.age}, ${r.row.shirtSize}: `}
                  {ATHLETE_FIELDS.every((f) => r.row[f] !== "") ? INVITE_TEXT.complete : null}
                  {r.missing.length > 0 ? `; ${INVITE_TEXT.waiverMissing}` : "; waiver signed"}{" "}
                  <button type="submit" name="removeInvited" value={String(r.id)} className="btn btn-link" formNoValidate disabled={props.busy}
                    aria-label={`Remove ${r.row.firstName} ${r.row.lastName}`}>Remove</button>
                </li>
              ))}
            </ul>
          )}
          <p className="muted">{INVITE_TEXT.heldNote}</p>
        </>
      ) : (
        <button type="submit" name="intent" value="invite" className="btn btn-secondary" formNoValidate disabled={props.busy}>{INVITE_TEXT.createButton}</button>
      )}
    </section>
  );
}
