import { useId, useRef, type MouseEvent } from "react";
import type { CoachEvent } from "../../src/shared/collegeCoachRequests/rules.ts";
import { CoachRequestForm, COACH_PAGE_PATH } from "../../components/CoachRequestForm.tsx";
import { useCoachRequestForm } from "../useCoachRequestForm.ts";
import { trapTab } from "../modal.ts";

export interface CoachRequestDialogProps {
  event: CoachEvent;
  /** The opening link's classes, so each page can style its button. */
  buttonClassName?: string;
}

/**
 * 'College Coach Registration': a link to the /coach-registration page (the no-JavaScript path) that opens the
 * same form in a native modal <dialog>. Focus stays inside, Escape closes it, and focus returns to the link.
 * On success the form resets, the dialog closes and the success toast shows.
 */
export default function CoachRequestDialog({ event, buttonClassName = "btn btn-secondary btn-block" }: CoachRequestDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLAnchorElement>(null);
  const titleId = useId();
  const close = () => dialog.current?.close();
  const { formRef, ...f } = useCoachRequestForm(event, close);

  const open = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || !dialog.current) return;
    e.preventDefault();
    dialog.current.showModal();
    dialog.current.querySelector<HTMLElement>("input:not([type='hidden'])")?.focus();
  };

  return (
    <>
      <a ref={opener} className={buttonClassName} href={`${COACH_PAGE_PATH}?eventId=${event.id}`} aria-haspopup="dialog" onClick={open} data-coach-dialog-open="">
        College Coach Registration
      </a>
      <dialog ref={dialog} className="coach-dialog" aria-labelledby={titleId} onKeyDown={trapTab} onClose={() => opener.current?.focus()}>
        <div className="coach-dialog-head">
          <div>
            <h2 id={titleId}>College Coach Registration</h2>
            <p className="muted">{event.title} &middot; {event.dateText} &middot; {event.location}</p>
          </div>
          <button type="button" className="btn-icon coach-dialog-close" aria-label="Close" onClick={close}>
            <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round">
              <path d="M18 6 6 18M6 6l12 12" />
            </svg>
          </button>
        </div>
        <CoachRequestForm event={event} field={f.field} choices={f.choices} logoError={f.errors.schoolLogo} submitting={f.submitting}
          onLogo={(file) => void f.chooseLogo(file)} logoInputKey={f.logoInputKey} formRef={formRef} onSubmit={(e) => void f.onSubmit(e)} />
        {/* Last in the tab order; shown top right like the page's own region. */}
        <div className="toast-region coach-dialog-toasts" data-toast-region aria-live="polite" />
      </dialog>
    </>
  );
}
