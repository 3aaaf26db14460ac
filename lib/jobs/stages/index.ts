// Every pipeline stage the workers can run. A stage registers itself (registerStage) in its own
// module; add one import here for it. Handlers load their heavy modules lazily, so importing
// this list is cheap for the web app, which only validates and queues jobs.
import "./import";
import "./graph";
import "./graph-block";
import "./embed-slice";
import "./genret";
