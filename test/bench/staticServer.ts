// The limit each page is compared with: a bare Express static server (the same kind of server as the app)
// answering files of the same bytes. Run by `npm run bench` as its own process; prints its port.
import express from "express";

const dir = process.argv[2];
if (!dir) throw new Error("usage: staticServer.ts <directory>");
const app = express();
app.disable("x-powered-by");
app.use(express.static(dir, { extensions: ["html"] }));
const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(`static listening on ${typeof address === "object" && address ? address.port : ""}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
