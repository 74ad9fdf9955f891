/**
 * The labelled evaluation set of offline extraction and classification, generated deterministically: invoices,
 * application forms and business reports with known values, each in four layouts (label: value lines, two-column
 * key-value tables, four-column key-value grids, and a mixed layout of inline pairs, header-over-value tables and
 * label lines followed by their value) and four formats (HTML and markdown written here, DOCX and PDF converted from
 * the HTML by LibreOffice). Some documents leave optional fields out: their expected value is null, so an extractor
 * that invents scores below 1 in precision. Mixed documents (pages of several kinds, and a page of none) label
 * pages for classification.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { PageClassConfig } from "@svc/contract";
import { type FontFamily, fontFamilyEnv } from "../../libreoffice/font-families.ts";
import type { JsonSchema } from "../schema.ts";

export type Kind = "invoice" | "form" | "report";
export type Layout = "lines" | "kv-table" | "grid" | "mixed";
export type Format = "html" | "markdown" | "docx" | "pdf";

export const KINDS: Kind[] = ["invoice", "form", "report"];
export const LAYOUTS: Layout[] = ["lines", "kv-table", "grid", "mixed"];
export const FORMATS: Format[] = ["html", "markdown", "docx", "pdf"];

type Block =
  | { type: "heading"; level: number; text: string }
  | { type: "paragraph"; text: string }
  | { type: "pairs"; pairs: [string, string][]; layout: Layout }
  | { type: "table"; headers: string[]; rows: string[][] }
  | { type: "pagebreak" };

export interface EvalDocument {
  id: string;
  kind: Kind;
  layout: Layout;
  blocks: Block[];
  schema: JsonSchema;
  expected: Record<string, unknown>;
}

/** A small deterministic generator (mulberry32), so the set is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, options: readonly T[]): T {
  return options[Math.floor(next() * options.length)];
}

const COMPANIES = [
  "Acme Corp",
  "Globex Ltd",
  "Initech GmbH",
  "Umbrella Supplies",
  "Stark Industries",
  "Wayne Works",
];
const PRODUCTS = [
  "Steel bracket",
  "Copper wire 10 m",
  "Safety gloves",
  "LED panel",
  "Hinge set",
  "Cable ties",
];
const FIRST = ["Maria", "John", "Aiko", "Pedro", "Fatima", "Lars", "Chen", "Olga"];
const LAST = ["Garcia", "Smith", "Tanaka", "Silva", "Khan", "Berg", "Wei", "Ivanova"];
const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const REGIONS = ["North", "South", "East", "West", "Central"];

interface Day {
  y: number;
  m: number;
  d: number;
}

function iso(day: Day): string {
  return `${day.y}-${String(day.m).padStart(2, "0")}-${String(day.d).padStart(2, "0")}`;
}

/** A date written in one of several styles; numeric styles use a day above 12 so the order is unambiguous. */
function writeDate(day: Day, style: number): string {
  switch (style % 4) {
    case 0:
      return `${MONTH_NAMES[day.m - 1]} ${day.d}, ${day.y}`;
    case 1:
      return iso(day);
    case 2:
      return `${String(day.d).padStart(2, "0")} ${MONTH_NAMES[day.m - 1].slice(0, 3)} ${day.y}`;
    default:
      return `${String(day.d).padStart(2, "0")}/${String(day.m).padStart(2, "0")}/${day.y}`;
  }
}

function randomDay(next: () => number): Day {
  return {
    y: 2020 + Math.floor(next() * 6),
    m: 1 + Math.floor(next() * 12),
    d: 13 + Math.floor(next() * 15),
  };
}

function money(value: number, currency: string): string {
  const fixed = value.toFixed(2);
  const [whole, cents] = fixed.split(".");
  if (currency === "EUR") return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ".")},${cents} €`;
  const symbol = currency === "GBP" ? "£" : "$";
  return `${symbol}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${cents}`;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

const str = (description?: string) => ({ type: "string", ...(description ? { description } : {}) });
const date = (description?: string) => ({
  type: "string",
  format: "date",
  ...(description ? { description } : {}),
});
const num = { type: "number" };
const int = { type: "integer" };
const bool = { type: "boolean" };
function object(properties: Record<string, unknown>): JsonSchema {
  return { type: "object", properties, required: Object.keys(properties) };
}

export const INVOICE_SCHEMA: JsonSchema = object({
  invoice_number: str("The invoice's number, labelled 'Invoice #' or 'Inv. No.'"),
  invoice_date: date("The date the invoice was issued"),
  due_date: date(),
  po_number: str("The customer's purchase order number"),
  vendor_name: str("The seller, labelled 'From' or 'Supplier'"),
  customer_name: str("The customer, labelled 'Bill To' or 'Customer'"),
  currency: { type: "string", enum: ["USD", "EUR", "GBP"] },
  subtotal: num,
  tax: { type: "number", description: "Tax amount, labelled 'VAT' or 'Sales Tax'" },
  total: { type: "number", description: "The total due, labelled 'Total Due' or 'Amount Due'" },
  paid: bool,
  line_items: {
    type: "array",
    items: object({ description: str(), quantity: int, unit_price: num, amount: num }),
  },
});

export const FORM_SCHEMA: JsonSchema = object({
  applicant: object({
    first_name: str(),
    last_name: str("Family name, labelled 'Surname'"),
    date_of_birth: date(),
    email: str(),
  }),
  phone: str("Telephone number"),
  address: str(),
  marital_status: { type: "string", enum: ["single", "married", "divorced", "widowed"] },
  employment_status: { type: "string", enum: ["employed", "self-employed", "unemployed", "retired"] },
  annual_income: num,
  has_dependents: bool,
  number_of_dependents: int,
  signature_date: date(),
});

export const REPORT_SCHEMA: JsonSchema = object({
  title: str("The report's title"),
  author: str("Who wrote the report, labelled 'Prepared by'"),
  report_date: date(),
  department: str(),
  period: str("The period covered, labelled 'Reporting period'"),
  revenue: num,
  expenses: { type: "number", description: "Total costs, labelled 'Operating expenses'" },
  net_income: num,
  headcount: int,
  summary: str("The summary paragraph"),
  regions: { type: "array", items: object({ region: str(), revenue: num, growth: num }) },
});

/**
 * Which label wordings a document uses: those the extractor was developed against, others held out, a third
 * "fresh" set written after the held-out one, or a fourth "unseen" set (both never used to tune the extractor).
 */
export type Wording = "dev" | "held-out" | "fresh" | "unseen";

/**
 * Wordings of the held-out set, by the first development wording of the same field: labels real documents use that
 * the extractor was not developed against (the eval reports them apart, as a check on overfitting).
 */
const HELD_OUT: Record<string, string[]> = {
  "Invoice Number": ["Bill Number", "Invoice Ref.", "Invoice ID", "Document No."],
  "Invoice Date": ["Billing Date", "Invoice Dated", "Date Issued", "Issued"],
  "Due Date": ["Pay By", "Payment Due Date", "Due On", "Due By"],
  "PO Number": ["Order Reference", "Your PO", "Customer PO", "Order No."],
  From: ["Vendor Name", "Sold By", "Issued By", "Remit To"],
  "Bill To": ["Sold To", "Customer Name", "Invoice To", "Billed To"],
  Currency: ["Currency Code", "Currency", "Curr.", "Currency"],
  Subtotal: ["Sub-total", "Net Total", "Subtotal (excl. tax)", "Total before tax"],
  Tax: ["Tax Amount", "VAT Amount", "GST", "Tax (VAT)"],
  "Total Due": ["Balance Due", "Grand Total", "Total Payable", "Invoice Total"],
  Paid: ["Paid in full", "Payment received", "Settled", "Paid?"],
  Description: ["Product", "Service", "Details", "Article"],
  Qty: ["Quantity", "Hours", "Pcs", "Count"],
  "Unit Price": ["Unit Cost", "Each", "Price per unit", "Rate"],
  Amount: ["Extended", "Net Amount", "Sum", "Line Amount"],
  "First Name": ["First", "Given name(s)", "Name (first)", "Forename(s)"],
  "Last Name": ["Family name", "Last", "Surname / family name", "Name (last)"],
  "Date of Birth": ["Birthdate", "Date of birth (DD/MM/YYYY)", "Born", "D.O.B."],
  Email: ["Email address", "Contact email", "E-mail", "Mail"],
  Phone: ["Mobile", "Contact number", "Telephone no.", "Phone (mobile)"],
  Address: ["Residential address", "Postal Address", "Home address", "Address"],
  "Marital Status": ["Civil status", "Marital status", "Relationship status", "Marital Status"],
  "Employment Status": ["Occupation status", "Work status", "Employment type", "Current employment"],
  "Annual Income": ["Gross annual income", "Income per year", "Salary (annual)", "Yearly earnings"],
  "Has Dependents": [
    "Dependants",
    "Do you have dependents?",
    "Children or dependents",
    "Dependents (yes/no)",
  ],
  "Number of Dependents": [
    "How many dependents",
    "Dependents (number)",
    "Number of dependants",
    "Total dependents",
  ],
  "Signature Date": ["Date of signature", "Signed (date)", "Signing date", "Date"],
  Author: ["Written by", "Author(s)", "Compiled by", "Analyst"],
  "Report Date": ["Published", "Date of report", "Issued on", "As of"],
  Department: ["Business unit", "Division", "Team", "Department"],
  Period: ["Quarter", "Covering", "Reporting window", "Fiscal period"],
  Revenue: ["Net sales", "Turnover", "Sales revenue", "Revenues"],
  Expenses: ["Costs", "Total costs", "Opex", "Operating costs"],
  "Net Income": ["Profit", "Net profit", "Net result", "Bottom line"],
  Headcount: ["FTEs", "Staff", "Number of employees", "Team size"],
  "Growth (%)": ["Change", "Growth rate", "Change (%)", "YoY"],
};

/**
 * Wordings of the fresh set, by the first development wording of the same field: realistic labels found in neither
 * the development nor the held-out wordings. Written before the extractor was changed for recall on unseen
 * wordings, and used only to measure it; never to tune it.
 */
const FRESH: Record<string, string[]> = {
  "Invoice Number": ["Inv #", "Bill No.", "Invoice Num.", "Invoice Reference"],
  "Invoice Date": ["Date of Invoice", "Billed On", "Inv. Date", "Date Invoiced"],
  "Due Date": ["Payment Due By", "Date Due", "Please Pay By", "Pay Before"],
  "PO Number": ["Purchase Order No.", "PO Ref.", "Buyer Order No.", "Client PO #"],
  From: ["Supplier Name", "Billed By", "Merchant", "Payee"],
  "Bill To": ["Bill-to Party", "Client Name", "Buyer", "Purchaser"],
  Currency: ["Currency (ISO)", "Ccy", "Invoice Currency", "Payment Currency"],
  Subtotal: ["Sub Total", "Amount before VAT", "Goods Total", "Net Value"],
  Tax: ["VAT @ 20%", "Total Tax", "Tax Due", "GST/HST"],
  "Total Due": ["Amount Payable", "Total Amount", "Total incl. VAT", "Amount to Pay"],
  Paid: ["Is Paid", "Paid (Y/N)", "Fully Paid", "Payment Made"],
  Description: ["Item / Service", "Particulars", "Goods", "Description of Goods"],
  Qty: ["Qty.", "No. of Units", "Quantity Ordered", "Ordered"],
  "Unit Price": ["Price/Unit", "Unit Rate", "Price Each", "U/Price"],
  Amount: ["Total Price", "Ext. Price", "Line Value", "Amount (excl. tax)"],
  "First Name": ["Christian Name", "First Names", "Applicant's First Name", "Name (Given)"],
  "Last Name": ["Surname(s)", "Last Names", "Applicant's Last Name", "Name (Family)"],
  "Date of Birth": ["Birthday", "Date Born", "Applicant's Date of Birth", "Born on"],
  Email: ["Email ID", "E-mail Addr.", "Electronic Mail", "Your Email"],
  Phone: ["Phone No.", "Tel. No.", "Cell", "Daytime Phone"],
  Address: ["Mailing Address", "Current Address", "Address Line", "Permanent Address"],
  "Employment Status": ["Employment situation", "Job Status", "Occupation", "Working Status"],
  "Annual Income": ["Annual Salary", "Income (per annum)", "Yearly Gross Income", "Annual Earnings"],
  "Has Dependents": ["Any dependants?", "Dependents (Y/N)", "Have dependents", "Dependent children?"],
  "Number of Dependents": [
    "No. of Dependants",
    "Dependent Count",
    "Count of Dependents",
    "Dependents (total)",
  ],
  "Signature Date": ["Signed Date", "Date of Signing", "Signature Dt.", "Date (signature)"],
  Author: ["Report Author", "Authored by", "Report Owner", "Created by"],
  "Report Date": ["Publication Date", "Report Dated", "Release Date", "Date Published"],
  Department: ["Dept.", "Department Name", "Business Area", "Dept"],
  Period: ["Reporting Quarter", "Time Period", "For the Period", "Review Period"],
  Revenue: ["Total Sales", "Gross Revenue", "Gross Sales", "Top Line"],
  Expenses: ["Total Expenditure", "Expenditure", "Cost of Operations", "Spend"],
  "Net Income": ["Net Earnings", "Profit / (Loss)", "Net Surplus", "Earnings"],
  Headcount: ["Staff Count", "No. of Staff", "Total Employees", "Head Count"],
  "Growth (%)": ["% Change", "Growth %", "Variance %", "YoY %"],
};

/**
 * Wordings of the unseen set, by the first development wording of the same field: a fourth set of realistic
 * labels in none of the sets above, written after the fresh set's rules were made and before anything was tuned
 * on it; a measure only, never used to tune the extractor.
 */
const UNSEEN: Record<string, string[]> = {
  "Invoice Number": ["Tax Invoice No.", "Reference Number", "Our Ref.", "Billing Reference"],
  "Invoice Date": ["Date of Issue", "Tax Point", "Issue Date", "Invoice Issued"],
  "Due Date": ["Payable By", "Settlement Date", "Payment Deadline", "Due"],
  "PO Number": ["Purchase Order", "Your Order No.", "Requisition No.", "P.O."],
  From: ["Seller", "Provider", "Issuer", "Company"],
  "Bill To": ["Customer", "Account Name", "Charged To", "Client"],
  Currency: ["Amounts in", "Billing Currency", "Currency Used", "Denomination"],
  Subtotal: ["Net Amount", "Total Net", "Items Total", "Total (net)"],
  Tax: ["Sales Tax", "VAT Total", "Tax Total", "Taxes"],
  "Total Due": ["Amount Due", "Total to Pay", "Gross Total", "Balance"],
  Paid: ["Payment Status Paid", "Paid Up", "Settled in Full", "Payment Complete"],
  Description: ["Item Description", "Service Description", "Line Item", "Product Name"],
  Qty: ["Units", "Number", "Amount Ordered", "Qty Shipped"],
  "Unit Price": ["Price", "Unit Amount", "Rate per Unit", "List Price"],
  Amount: ["Line Total", "Subtotal (line)", "Value", "Net"],
  "First Name": ["Given Name", "First Given Name", "Forename", "Name, First"],
  "Last Name": ["Family Name", "Surname", "Name, Last", "Last Name (Surname)"],
  "Date of Birth": ["DOB", "Birth Date", "Date of Birth (YYYY-MM-DD)", "Birth"],
  Email: ["Email Address", "Primary Email", "E-Mail Address", "Contact E-mail"],
  Phone: ["Telephone", "Phone Number", "Contact Phone", "Mobile Number"],
  Address: ["Street Address", "Home Address", "Residence", "Correspondence Address"],
  "Marital Status": ["Family Status", "Marriage Status", "Civil State", "Status (marital)"],
  "Employment Status": ["Employment", "Current Occupation Status", "Job Situation", "Work Situation"],
  "Annual Income": ["Income", "Household Income (annual)", "Annual Pay", "Earnings per Year"],
  "Has Dependents": [
    "Dependents?",
    "Supporting dependents",
    "Do you support dependents?",
    "Dependants (Y/N)",
  ],
  "Number of Dependents": ["Dependents Count", "How many dependants", "Qty of Dependents", "Dependents No."],
  "Signature Date": ["Date Signed", "Signed On", "Date of Declaration", "Declaration Date"],
  Author: ["Prepared by", "Report Prepared By", "Author Name", "Owner"],
  "Report Date": ["Date", "Dated", "Report Issued", "Issue Date of Report"],
  Department: ["Unit", "Function", "Section", "Org Unit"],
  Period: ["Period Covered", "Reporting Period", "Fiscal Quarter", "Timeframe"],
  Revenue: ["Income from Sales", "Total Revenue", "Revenue (total)", "Sales"],
  Expenses: ["Operating Expenses", "Total Expenses", "Costs Incurred", "OPEX"],
  "Net Income": ["Net Profit", "Profit after Tax", "Net Result for Period", "Surplus"],
  Headcount: ["Employees", "Staff Numbers", "Personnel", "Number of Staff"],
  "Growth (%)": ["Growth", "Change vs Prior", "% Growth", "Increase (%)"],
};

/** The label a document uses for a field: one of the field's wordings, by the document's layout and index. */
function labelFor(wording: Wording): (layoutIndex: number, options: string[]) => string {
  return (layoutIndex, options) => {
    const alternatives =
      wording === "held-out" ? HELD_OUT : wording === "fresh" ? FRESH : wording === "unseen" ? UNSEEN : {};
    const choices = alternatives[options[0]] ?? options;
    return choices[layoutIndex % choices.length];
  };
}

/** The pairs of one document laid out: a layout is a way to write label/value pairs. */
function pairsBlock(pairs: [string, string][], layout: Layout): Block[] {
  return [{ type: "pairs", pairs, layout }];
}

function invoice(index: number, layout: Layout, wording: Wording = "dev"): EvalDocument {
  const label = labelFor(wording);
  const next = random(1000 + index);
  const li = LAYOUTS.indexOf(layout) + index;
  const currency = pick(next, ["USD", "EUR", "GBP"]);
  const items = Array.from({ length: 2 + Math.floor(next() * 4) }, () => {
    const quantity = 1 + Math.floor(next() * 20);
    const unitPrice = round2(5 + next() * 1500);
    return {
      description: pick(next, PRODUCTS),
      quantity,
      unit_price: unitPrice,
      amount: round2(quantity * unitPrice),
    };
  });
  const subtotal = round2(items.reduce((sum, item) => sum + item.amount, 0));
  const tax = round2(subtotal * 0.2);
  const total = round2(subtotal + tax);
  const issued = randomDay(next);
  const due = {
    ...issued,
    m: issued.m === 12 ? 1 : issued.m + 1,
    y: issued.m === 12 ? issued.y + 1 : issued.y,
  };
  const hasPo = index % 2 === 0;
  const paid = next() < 0.5;
  const vendor = pick(next, COMPANIES);
  const customer = pick(
    next,
    COMPANIES.filter((company) => company !== vendor),
  );
  const number = `INV-${2024 + (index % 3)}-${String(100 + index * 7).padStart(4, "0")}`;
  const po = `PO-${4000 + index * 13}`;
  const expected = {
    invoice_number: number,
    invoice_date: iso(issued),
    due_date: iso(due),
    po_number: hasPo ? po : null,
    vendor_name: vendor,
    customer_name: customer,
    currency,
    subtotal,
    tax,
    total,
    paid,
    line_items: items,
  };
  const header: [string, string][] = [
    [label(li, ["Invoice Number", "Invoice #", "Inv. No.", "Invoice No"]), number],
    [label(li, ["Invoice Date", "Date", "Date of Issue", "Issue Date"]), writeDate(issued, li)],
    [label(li, ["Due Date", "Payment Due", "Due Date", "Due"]), writeDate(due, li + 1)],
    ...(hasPo
      ? [[label(li, ["PO Number", "Purchase Order", "P.O. No.", "PO #"]), po] as [string, string]]
      : []),
    [label(li, ["From", "Supplier", "Vendor", "Seller"]), vendor],
    [label(li, ["Bill To", "Customer", "Client", "Bill To"]), customer],
    [label(li, ["Currency"]), currency],
  ];
  const totals: [string, string][] = [
    [label(li, ["Subtotal"]), money(subtotal, currency)],
    [label(li, ["Tax", "VAT (20%)", "Sales Tax", "Tax (20%)"]), money(tax, currency)],
    [label(li, ["Total Due", "Total", "Amount Due", "Total"]), money(total, currency)],
    [
      label(li, ["Paid"]),
      label(li, ["Yes/No", "checkbox", "word", "checkbox"]) === "checkbox"
        ? paid
          ? "☑ Yes ☐ No"
          : "☐ Yes ☑ No"
        : paid
          ? "Yes"
          : "No",
    ],
  ];
  const lineHeaders = [
    label(li, ["Description", "Item", "Description", "Item Description"]),
    label(li, ["Qty", "Quantity", "Qty", "Units"]),
    label(li, ["Unit Price", "Price", "Rate", "Unit Price"]),
    label(li, ["Amount", "Line Total", "Amount", "Total"]),
  ];
  const table: Block = {
    type: "table",
    headers: lineHeaders,
    rows: items.map((item) => [
      item.description,
      String(item.quantity),
      money(item.unit_price, currency),
      money(item.amount, currency),
    ]),
  };
  const blocks: Block[] = [
    { type: "heading", level: 1, text: "INVOICE" },
    ...pairsBlock(header, layout),
    { type: "paragraph", text: "Items supplied as ordered." },
    table,
    { type: "paragraph", text: "Totals for this invoice:" },
    ...pairsBlock(totals, layout === "mixed" ? "lines" : layout),
    { type: "paragraph", text: "Thank you for your business. Please pay within 30 days." },
  ];
  return { id: `invoice-${index}`, kind: "invoice", layout, blocks, schema: INVOICE_SCHEMA, expected };
}

function form(index: number, layout: Layout, wording: Wording = "dev"): EvalDocument {
  const label = labelFor(wording);
  const next = random(2000 + index);
  const li = LAYOUTS.indexOf(layout) + index;
  const first = pick(next, FIRST);
  const last = pick(next, LAST);
  const born = {
    y: 1950 + Math.floor(next() * 50),
    m: 1 + Math.floor(next() * 12),
    d: 13 + Math.floor(next() * 15),
  };
  const signed = randomDay(next);
  const marital = pick(next, ["single", "married", "divorced", "widowed"] as const);
  const employment = pick(next, ["employed", "self-employed", "unemployed", "retired"] as const);
  const income = Math.round(20000 + next() * 150000);
  const dependents = Math.floor(next() * 4);
  const hasAddress = index % 3 !== 0;
  const phone = `+1 555 ${String(100 + Math.floor(next() * 900))} ${String(1000 + Math.floor(next() * 9000))}`;
  const email = `${first.toLowerCase()}.${last.toLowerCase()}@example.org`;
  const address = `${10 + index} ${pick(next, ["Oak", "Elm", "Pine", "Maple"])} Street, Springfield`;
  const expected = {
    applicant: { first_name: first, last_name: last, date_of_birth: iso(born), email },
    phone,
    address: hasAddress ? address : null,
    marital_status: marital,
    employment_status: employment,
    annual_income: income,
    has_dependents: dependents > 0,
    number_of_dependents: dependents,
    signature_date: iso(signed),
  };
  const capital = (word: string) =>
    word.replace(/(^|-)(\p{L})/gu, (_, dash, letter) => dash + letter.toUpperCase());
  const boxes = (options: readonly string[], chosen: string) =>
    options.map((option) => `${option === chosen ? "☑" : "☐"} ${capital(option)}`).join(" ");
  const checkboxes = li % 2 === 0;
  const pairs: [string, string][] = [
    [label(li, ["First Name", "Given Name", "First name", "Forename"]), first],
    [label(li, ["Last Name", "Surname", "Family Name", "Last name"]), last],
    [label(li, ["Date of Birth", "DOB", "Birth Date", "Date of birth"]), writeDate(born, li)],
    [label(li, ["Email", "E-mail", "Email Address", "E-mail address"]), email],
    [label(li, ["Phone", "Telephone", "Phone Number", "Tel."]), phone],
    ...(hasAddress
      ? [[label(li, ["Address", "Home Address", "Street Address", "Address"]), address] as [string, string]]
      : []),
    [
      "Marital Status",
      checkboxes ? boxes(["single", "married", "divorced", "widowed"], marital) : capital(marital),
    ],
    [
      label(li, ["Employment Status", "Employment", "Employment status", "Employment Status"]),
      checkboxes
        ? boxes(["employed", "self-employed", "unemployed", "retired"], employment)
        : capital(employment),
    ],
    [
      label(li, ["Annual Income", "Yearly Income", "Annual income (USD)", "Annual Income"]),
      money(income, "USD"),
    ],
    [
      label(li, ["Has Dependents", "Dependents?", "Any dependents", "Has dependents"]),
      checkboxes ? (dependents > 0 ? "☑ Yes ☐ No" : "☐ Yes ☑ No") : dependents > 0 ? "Yes" : "No",
    ],
    [
      label(li, ["Number of Dependents", "No. of Dependents", "Number of dependents", "Dependents Count"]),
      String(dependents),
    ],
  ];
  const blocks: Block[] = [
    { type: "heading", level: 1, text: "Membership Application Form" },
    { type: "paragraph", text: "Please complete every field in block capitals." },
    { type: "heading", level: 2, text: "Applicant details" },
    ...pairsBlock(pairs.slice(0, 6 - (hasAddress ? 0 : 1) + 0), layout),
    { type: "heading", level: 2, text: "Household and employment" },
    ...pairsBlock(pairs.slice(6 - (hasAddress ? 0 : 1)), layout),
    { type: "heading", level: 2, text: "Declaration" },
    { type: "paragraph", text: "I declare that the information given is true and complete." },
    ...pairsBlock(
      [
        [
          label(li, ["Signature Date", "Date Signed", "Signed on", "Signature date"]),
          writeDate(signed, li + 2),
        ],
      ],
      "lines",
    ),
  ];
  return { id: `form-${index}`, kind: "form", layout, blocks, schema: FORM_SCHEMA, expected };
}

function report(index: number, layout: Layout, wording: Wording = "dev"): EvalDocument {
  const label = labelFor(wording);
  const next = random(3000 + index);
  const li = LAYOUTS.indexOf(layout) + index;
  const quarter = 1 + Math.floor(next() * 4);
  const year = 2021 + Math.floor(next() * 4);
  const title = `${pick(next, ["Quarterly Business Review", "Operations Report", "Sales Performance Report"])} Q${quarter} ${year}`;
  const author = `${pick(next, FIRST)} ${pick(next, LAST)}`;
  const dated = randomDay(next);
  const hasDepartment = index % 2 === 1;
  const department = pick(next, ["Finance", "Operations", "Sales", "Logistics"]);
  const regions = REGIONS.slice(0, 3 + Math.floor(next() * 3)).map((region) => ({
    region,
    revenue: Math.round(100000 + next() * 900000),
    growth: round2(-5 + next() * 20),
  }));
  const revenue = regions.reduce((sum, region) => sum + region.revenue, 0);
  const expenses = Math.round(revenue * (0.5 + next() * 0.4));
  const headcount = 20 + Math.floor(next() * 400);
  const summary = `Revenue reached ${money(revenue, "USD")} in the quarter while operating costs stayed within budget; the ${regions[0].region} region grew fastest.`;
  const expected = {
    title,
    author,
    report_date: iso(dated),
    department: hasDepartment ? department : null,
    period: `Q${quarter} ${year}`,
    revenue,
    expenses,
    net_income: revenue - expenses,
    headcount,
    summary,
    regions,
  };
  const meta: [string, string][] = [
    [label(li, ["Author", "Prepared by", "Author", "Prepared By"]), author],
    [label(li, ["Report Date", "Date", "Report date", "Dated"]), writeDate(dated, li)],
    ...(hasDepartment ? [[label(li, ["Department"]), department] as [string, string]] : []),
    [label(li, ["Period", "Reporting Period", "Period Covered", "Period"]), `Q${quarter} ${year}`],
  ];
  const figures: [string, string][] = [
    [label(li, ["Revenue", "Total Revenue", "Revenue", "Revenue (USD)"]), money(revenue, "USD")],
    [label(li, ["Expenses", "Operating Expenses", "Total Expenses", "Expenses"]), money(expenses, "USD")],
    [label(li, ["Net Income", "Net income", "Net Income", "Net Income"]), money(revenue - expenses, "USD")],
    [label(li, ["Headcount", "Employees", "Headcount", "Staff Headcount"]), String(headcount)],
  ];
  const blocks: Block[] = [
    { type: "heading", level: 1, text: title },
    ...pairsBlock(meta, layout),
    { type: "heading", level: 2, text: "Summary" },
    { type: "paragraph", text: summary },
    { type: "heading", level: 2, text: "Key figures" },
    ...pairsBlock(figures, layout === "mixed" ? "kv-table" : layout),
    { type: "heading", level: 2, text: "Results by region" },
    {
      type: "table",
      headers: [
        "Region",
        label(li, ["Revenue", "Revenue (USD)", "Sales", "Revenue"]),
        label(li, ["Growth (%)", "Growth", "YoY Growth %", "Growth (%)"]),
      ],
      rows: regions.map((region) => [
        region.region,
        money(region.revenue, "USD"),
        `${region.growth.toFixed(2)}%`,
      ]),
    },
    { type: "heading", level: 2, text: "Outlook" },
    { type: "paragraph", text: "The team expects demand to remain steady over the next two quarters." },
  ];
  return { id: `report-${index}`, kind: "report", layout, blocks, schema: REPORT_SCHEMA, expected };
}

const BUILDERS: Record<Kind, (index: number, layout: Layout, wording?: Wording) => EvalDocument> = {
  invoice,
  form,
  report,
};

/**
 * Every (kind, layout) document of the set; `perLayout` documents of each, each with its own values. The
 * held-out and fresh wordings give other documents (other values too), ids prefixed `held-out-` and `fresh-`.
 */
export function buildExtractionSet(perLayout = 1, wording: Wording = "dev"): EvalDocument[] {
  const documents: EvalDocument[] = [];
  for (const kind of KINDS) {
    for (const layout of LAYOUTS) {
      for (let copy = 0; copy < perLayout; copy++) {
        if (wording === "dev") {
          documents.push(BUILDERS[kind](LAYOUTS.indexOf(layout) * 10 + copy, layout));
        } else {
          const base = wording === "held-out" ? 5 : wording === "fresh" ? 200 : 400;
          const doc = BUILDERS[kind](LAYOUTS.indexOf(layout) * 10 + base + copy, layout, wording);
          documents.push({ ...doc, id: `${wording}-${doc.id}` });
        }
      }
    }
  }
  return documents;
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering

const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
const escapeCell = (text: string) => text.replaceAll("|", "\\|");

function pairsHtml(pairs: [string, string][], layout: Layout): string {
  const row = (cells: string[], tag = "td") =>
    `<tr>${cells.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join("")}</tr>`;
  switch (layout) {
    case "lines":
      return pairs.map(([l, v]) => `<p>${escapeHtml(l)}: ${escapeHtml(v)}</p>`).join("\n");
    case "kv-table":
      return `<table border="1">${pairs.map((pair) => row(pair)).join("")}</table>`;
    case "grid": {
      const rows: string[] = [];
      for (let i = 0; i < pairs.length; i += 2) rows.push(row([...pairs[i], ...(pairs[i + 1] ?? ["", ""])]));
      return `<table border="1">${rows.join("")}</table>`;
    }
    case "mixed": {
      // Two pairs on one line, then header-over-value tables of three, then a label line followed by its value.
      const [a, b, ...rest] = pairs;
      const parts = [
        `<p>${escapeHtml(a[0])}: ${escapeHtml(a[1])}&nbsp;&nbsp;&nbsp;&nbsp;${b ? `${escapeHtml(b[0])}: ${escapeHtml(b[1])}` : ""}</p>`,
      ];
      const last = rest.length > 3 ? rest.pop() : undefined;
      for (let i = 0; i < rest.length; i += 3) {
        const group = rest.slice(i, i + 3);
        parts.push(
          `<table border="1">${row(
            group.map((pair) => pair[0]),
            "th",
          )}${row(group.map((pair) => pair[1]))}</table>`,
        );
      }
      if (last) parts.push(`<p>${escapeHtml(last[0])}:</p>\n<p>${escapeHtml(last[1])}</p>`);
      return parts.join("\n");
    }
  }
}

function pairsMarkdown(pairs: [string, string][], layout: Layout): string {
  const row = (cells: string[]) => `| ${cells.map(escapeCell).join(" | ")} |`;
  switch (layout) {
    case "lines":
      return pairs.map(([l, v]) => `${l}: ${v}`).join("\n\n");
    case "kv-table":
      return [row(["Field", "Value"]), row(["---", "---"]), ...pairs.map((pair) => row(pair))].join("\n");
    case "grid": {
      const rows = [row(["Field", "Value", "Field", "Value"]), row(["---", "---", "---", "---"])];
      for (let i = 0; i < pairs.length; i += 2) rows.push(row([...pairs[i], ...(pairs[i + 1] ?? ["", ""])]));
      return rows.join("\n");
    }
    case "mixed": {
      const [a, b, ...rest] = pairs;
      const parts = [`${a[0]}: ${a[1]}    ${b ? `${b[0]}: ${b[1]}` : ""}`];
      const last = rest.length > 3 ? rest.pop() : undefined;
      for (let i = 0; i < rest.length; i += 3) {
        const group = rest.slice(i, i + 3);
        parts.push(
          [
            row(group.map((pair) => pair[0])),
            row(group.map(() => "---")),
            row(group.map((pair) => pair[1])),
          ].join("\n"),
        );
      }
      if (last) parts.push(`${last[0]}:\n${last[1]}`);
      return parts.join("\n\n");
    }
  }
}

export function toHtml(blocks: Block[]): string {
  let pageBreak = false;
  const body = blocks.map((block) => {
    const style = pageBreak ? ' style="page-break-before: always"' : "";
    if (block.type !== "pagebreak") pageBreak = false;
    switch (block.type) {
      case "heading":
        return `<h${block.level}${style}>${escapeHtml(block.text)}</h${block.level}>`;
      case "paragraph":
        return `<p${style}>${escapeHtml(block.text)}</p>`;
      case "pairs":
        return pairsHtml(block.pairs, block.layout);
      case "table":
        return `<table border="1"><tr>${block.headers.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr>${block.rows
          .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`)
          .join("")}</table>`;
      default:
        pageBreak = true;
        return "";
    }
  });
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>document</title></head><body>\n${body.join("\n")}\n</body></html>\n`;
}

export function toMarkdown(blocks: Block[]): string {
  return `${blocks
    .map((block) => {
      switch (block.type) {
        case "heading":
          return `${"#".repeat(block.level)} ${block.text}`;
        case "paragraph":
          return block.text;
        case "pairs":
          return pairsMarkdown(block.pairs, block.layout);
        case "table":
          return [
            `| ${block.headers.map(escapeCell).join(" | ")} |`,
            `| ${block.headers.map(() => "---").join(" | ")} |`,
            ...block.rows.map((r) => `| ${r.map(escapeCell).join(" | ")} |`),
          ].join("\n");
        default:
          return "";
      }
    })
    .filter((text) => text !== "")
    .join("\n\n")}\n`;
}

export const MIME_TYPES: Record<Format, string> = {
  html: "text/html",
  markdown: "text/markdown",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pdf: "application/pdf",
};

/**
 * Writes documents in the formats asked for under `dir` and returns the bytes of each (by `<id>.<format>`).
 * DOCX and PDF are converted from the HTML by one `soffice --headless` run per format, laid out in `font` only
 * when it is given (else in what the machine's fonts substitute for LibreOffice's defaults).
 */
export function renderDocuments(
  documents: { id: string; blocks: Block[] }[],
  formats: readonly Format[],
  dir: string,
  options: { font?: FontFamily } = {},
): Map<string, Uint8Array> {
  mkdirSync(dir, { recursive: true });
  const files = new Map<string, Uint8Array>();
  const htmlPaths: string[] = [];
  for (const document of documents) {
    const htmlPath = path.join(dir, `${document.id}.html`);
    writeFileSync(htmlPath, toHtml(document.blocks));
    htmlPaths.push(htmlPath);
    if (formats.includes("html")) files.set(`${document.id}.html`, new Uint8Array(readFileSync(htmlPath)));
    if (formats.includes("markdown")) {
      files.set(`${document.id}.markdown`, new TextEncoder().encode(toMarkdown(document.blocks)));
    }
  }
  const converted: [Format, string][] = [
    ["pdf", "pdf:writer_pdf_Export"],
    ["docx", "docx:MS Word 2007 XML"],
  ];
  for (const [format, filter] of converted) {
    if (!formats.includes(format)) continue;
    execFileSync(
      "soffice",
      [
        `-env:UserInstallation=file://${path.join(dir, "profile")}`,
        // Read as a Writer document (not Writer/Web), so pages and page breaks are a printed document's.
        "--infilter=HTML (StarWriter)",
        "--headless",
        "--convert-to",
        filter,
        "--outdir",
        dir,
        ...htmlPaths,
      ],
      {
        stdio: "ignore",
        timeout: 600_000,
        env: options.font ? fontFamilyEnv(options.font, path.join(dir, "font")) : process.env,
      },
    );
    for (const document of documents) {
      files.set(
        `${document.id}.${format}`,
        new Uint8Array(readFileSync(path.join(dir, `${document.id}.${format}`))),
      );
    }
  }
  return files;
}

// ---------------------------------------------------------------------------------------------------------------
// Page classification

export const PAGE_CLASSES: PageClassConfig[] = [
  {
    name: "invoice",
    description:
      "An invoice or bill from a supplier: invoice number, customer, line items with amounts, tax and total due",
  },
  {
    name: "application_form",
    description:
      "A filled-in application form: applicant details as labelled fields, checkboxes and a signature",
  },
  {
    name: "report",
    description: "A business report: title, author, summary, key figures and results by region, outlook",
  },
];

const EXPECTED_CLASS: Record<Kind, string> = {
  invoice: "invoice",
  form: "application_form",
  report: "report",
};

/**
 * Pages every class should leave out: terms and conditions (no class's evidence), or a cover letter that talks
 * about an invoice and a form in prose but is neither.
 */
function otherPage(index: number): Block[] {
  if (index % 2 === 1) {
    return [
      { type: "heading", level: 1, text: "Dear customer" },
      {
        type: "paragraph",
        text:
          "Thank you for your recent order. Please find enclosed our invoice for the goods delivered last month, " +
          "and the application form you asked for. Our accounts team will be glad to answer any question about " +
          "the payment or the amounts shown.",
      },
      { type: "paragraph", text: "With kind regards, the customer service team" },
    ];
  }
  return [
    { type: "heading", level: 1, text: "Terms and Conditions" },
    {
      type: "paragraph",
      text:
        "These terms govern the use of the services. The provider may change these terms at any time by publishing " +
        "a new version. Liability is limited to the extent permitted by law, and disputes are settled by the courts " +
        `of the provider's seat. Clause ${index + 1} applies to all customers.`,
    },
    {
      type: "paragraph",
      text: "Nothing in these terms excludes rights that cannot be excluded by agreement.",
    },
  ];
}

export interface MixedDocument {
  id: string;
  blocks: Block[];
  /** Expected class of each page (1-based index - 1); null = no class. */
  pages: (string | null)[];
}

/** Documents of four or five pages each mixing invoices, forms, reports and an unclassifiable page. */
export function buildMixedSet(count = 6): MixedDocument[] {
  const documents: MixedDocument[] = [];
  for (let index = 0; index < count; index++) {
    const next = random(9000 + index);
    const order: (Kind | null)[] = [...KINDS, pick(next, KINDS), null];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const blocks: Block[] = [];
    order.forEach((kind, position) => {
      if (position > 0) blocks.push({ type: "pagebreak" });
      const layout = pick(next, LAYOUTS);
      blocks.push(
        ...(kind === null ? otherPage(index) : BUILDERS[kind](100 + index * 5 + position, layout).blocks),
      );
    });
    documents.push({
      id: `mixed-${index}`,
      blocks,
      pages: order.map((kind) => (kind === null ? null : EXPECTED_CLASS[kind])),
    });
  }
  return documents;
}
