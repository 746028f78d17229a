export type ToastVariant = "default" | "success" | "destructive";
export interface ToastMessage {
  title: string;
  description?: string;
  variant?: ToastVariant;
}

/** Server markup of a toast; widgets/toast.ts builds the same markup in the browser. */
export function Toast({ toast }: { toast: ToastMessage }) {
  return (
    <div className={`toast toast-${toast.variant ?? "default"} toast-server`} role={toast.variant === "destructive" ? "alert" : "status"}>
      <p className="toast-title">{toast.title}</p>
      {toast.description ? <p className="toast-description">{toast.description}</p> : null}
    </div>
  );
}
