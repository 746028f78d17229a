export function NotFoundPage() {
  return (
    <section className="page-center">
      <p className="eyebrow">Error 404</p>
      <h1 className="display">Page not found</h1>
      <p className="lead">The page you are looking for doesn't exist or has been moved.</p>
      <a className="btn btn-primary" href="/">Return to Home</a>
    </section>
  );
}
