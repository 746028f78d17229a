import { useEffect, useId, useRef } from "react";
import type { TeamEventChoice } from "../../src/shared/home/eventOffers.ts";
import { TeamEventChoices, TeamNotes } from "../../components/TeamEventChoices.tsx";
import { trapTab } from "../modal.ts";

/**
 * The team event modal. Any link marked `data-team-modal-open` (its href is the /team-events page, the
 * no-JavaScript path) opens it. A native modal <dialog>: focus stays inside, Escape closes it, and focus goes
 * back to the link that opened it. Choosing an event closes it and follows the link to /team-registration.
 */
export default function TeamEventModal({ events }: { events: TeamEventChoice[] }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();

  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const trigger = (e.target as Element | null)?.closest?.("[data-team-modal-open]");
      if (!(trigger instanceof HTMLElement) || !dialog.current) return;
      e.preventDefault();
      opener.current = trigger;
      dialog.current.showModal();
    };
    document.addEventListener("click", onClick);
    return () => document.removeEventListener("click", onClick);
  }, []);

  const close = () => dialog.current?.close();
  const onClose = () => {
    opener.current?.focus();
    opener.current = null;
  };

  return (
    <dialog ref={dialog} className="team-modal" aria-labelledby={titleId} onClose={onClose} onKeyDown={trapTab}
      onClick={(e) => {
        // A click on the backdrop (the dialog box itself, outside its content) closes it.
        if (e.target === e.currentTarget) close();
      }}>
      <div className="team-modal-content">
        <div className="team-modal-head">
          <h2 id={titleId}>Choose Your Team Event</h2>
          <button type="button" className="btn-icon team-modal-close" aria-label="Close" onClick={close}>
            <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round">
              <path d="M18 6 6 18M6 6l12 12" />
            </svg>
          </button>
        </div>
        <p className="muted">Team pricing for every athlete on your roster. Pick the event to start your team registration.</p>
        <TeamEventChoices events={events} onChoose={close} />
        <TeamNotes />
      </div>
    </dialog>
  );
}
