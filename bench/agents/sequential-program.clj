;; Weekly order review: build the sample orders, validate them, group them by region,
;; work out totals and outliers, then notify each on-call channel once (one task each).
(def regions ["north" "south" "east" "west"])
(def currencies {"north" "EUR" "south" "EUR" "east" "USD" "west" "GBP"})
(def rates {"EUR" 1.0 "USD" 0.92 "GBP" 1.17})

(defn make-order [i]
  {:id (str "ord-" (+ 1000 i))
   :region (nth regions (mod i 4))
   :amount (+ 20 (mod (* i 37) 480))
   :items (inc (mod i 5))
   :status (cond (zero? (mod i 11)) "cancelled"
                 (zero? (mod i 7)) "pending"
                 :else "paid")})

(defn valid? [order]
  (and (string? (:id order))
       (pos? (:amount order))
       (contains? #{"paid" "pending" "cancelled"} (:status order))))

(defn in-eur [order]
  (let [currency (get currencies (:region order))
        rate (get rates currency 1.0)]
    (assoc order :currency currency :eur (* rate (:amount order)))))

(defn summarize-region [[region orders]]
  (let [paid (filter #(= "paid" (:status %)) orders)
        total (reduce + 0 (map :eur paid))
        biggest (when (seq paid) (apply max-key :eur paid))]
    {:region region
     :orders (count orders)
     :paid (count paid)
     :total-eur (/ (Math/round (* total 100)) 100)
     :biggest (:id biggest)
     :avg-items (if (seq orders) (/ (reduce + (map :items orders)) (count orders)) 0)}))

(defn outliers [orders]
  (let [amounts (map :eur orders)
        mean (/ (reduce + amounts) (max 1 (count amounts)))
        limit (* 1.8 mean)]
    (->> orders
         (filter #(> (:eur %) limit))
         (sort-by :eur >)
         (take 5)
         (mapv #(select-keys % [:id :region :eur])))))

(defn line-for [summary]
  (str (:region summary) ": " (:paid summary) "/" (:orders summary) " paid, "
       (:total-eur summary) " EUR, biggest " (or (:biggest summary) "none")))

;; data quality: the same order id twice, or items without an amount, go to the notes
(defn quality-notes [orders]
  (let [ids (map :id orders)
        dupes (keep (fn [[id n]] (when (> n 1) id)) (frequencies ids))
        empty (filter #(zero? (:items %)) orders)
        tiny (filter #(< (:amount %) 25) orders)]
    (cond-> []
      (seq dupes) (conj (str "duplicate ids: " (str/join ", " dupes)))
      (seq empty) (conj (str (count empty) " orders without items"))
      (seq tiny) (conj (str (count tiny) " orders under 25: " (str/join ", " (map :id tiny)))))))

(defn pad [s n] (let [s (str s)] (str s (apply str (repeat (max 0 (- n (count s))) " ")))))

(defn table [summaries]
  (str/join "\n"
            (cons (str (pad "region" 8) (pad "paid" 6) (pad "orders" 8) "total EUR")
                  (for [s summaries]
                    (str (pad (:region s) 8) (pad (:paid s) 6) (pad (:orders s) 8) (:total-eur s))))))

(let [orders (->> (range 40) (map make-order) (filter valid?) (map in-eur))
      by-region (sort-by first (group-by :region orders))
      summaries (mapv summarize-region by-region)
      flagged (outliers orders)
      report {:week "2026-W47"
              :regions summaries
              :outliers flagged
              :cancelled (count (filter #(= "cancelled" (:status %)) orders))
              :pending (count (filter #(= "pending" (:status %)) orders))}]
  (doseq [s summaries] (println (line-for s)))
  (println (table summaries))
  (doseq [note (quality-notes orders)] (println "note:" note))
  (when (seq flagged)
    (println "outliers:" (str/join ", " (map :id flagged))))
  (step-done "review" (str (count orders) " orders in " (count summaries) " regions"))
  ;; each notification is an external effect: one task per channel, so a resumed pass
  ;; (after each effect, or after a crash) never notifies a channel twice
  (let [acks (loop [i 0 acc []]
               (if (< i data/n)
                 (let [ack (task (str "ping_" i) (tool/ping {:i i}))]
                   (recur (inc i) (conj acc (:pong ack))))
                 acc))]
    (return {:count (count acks)})))
