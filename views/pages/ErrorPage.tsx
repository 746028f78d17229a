export function ErrorPage({ title, message }: { title: string; message: string }) {
  return (
    <section className="page-center">
      <h1 className="display">{title}</h1>
      <p className="lead">{message}</p>
      <a className="btn btn-primary" href="/">Return to Home</a>
    </section>
  );
}
