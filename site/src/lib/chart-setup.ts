/** Registers only the chart.js parts the course uses, so the bundle stays small (tree-shaken). */
import { BarController, LineController, ScatterController } from 'chart.js';
import { BarElement, LineElement, PointElement } from 'chart.js';
import { CategoryScale, LinearScale, LogarithmicScale } from 'chart.js';
import { Chart, Legend, Tooltip } from 'chart.js';

// By kind: the chart types the course draws (bar, line, scatter), what they draw with, their axes, the plugins.
Chart.register(BarController, LineController, ScatterController);
Chart.register(BarElement, LineElement, PointElement);
Chart.register(CategoryScale, LinearScale, LogarithmicScale);
Chart.register(Legend, Tooltip);

export { Chart };
